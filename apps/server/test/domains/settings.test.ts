import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { testEnv } from '../support/test-app.ts';

describe('domain settings', () => {
  it('default to 30 domains per organisation and a 2-second DNS bound', () => {
    const config = loadConfig(testEnv());
    expect(config.maxDomainsPerOrganization).toBe(30);
    expect(config.dnsTimeoutMs).toBe(2000);
    expect(config.domainRecheckIntervalMs).toBe(600_000);
  });

  it.each([
    [
      'MAX_DOMAINS_PER_ORGANIZATION',
      '0',
      'Invalid setting MAX_DOMAINS_PER_ORGANIZATION: expected at least 1',
    ],
    [
      'MAX_DOMAINS_PER_ORGANIZATION',
      'many',
      'Invalid setting MAX_DOMAINS_PER_ORGANIZATION: expected a number',
    ],
    ['DNS_TIMEOUT_MS', '50', 'Invalid setting DNS_TIMEOUT_MS: expected at least 100'],
    ['DNS_TIMEOUT_MS', '60000', 'Invalid setting DNS_TIMEOUT_MS: expected at most 30000'],
    [
      'DNS_SERVERS',
      '127.0.0.1:53,dns.example',
      'Invalid setting DNS_SERVERS: "dns.example" is not an ip or ip:port',
    ],
  ])('refuse %s=%s with one line naming it', (setting, value, message) => {
    expect(() => loadConfig(testEnv({ [setting]: value }))).toThrow(message);
  });
});
