import { DOMAIN_VERIFICATION_PREFIX, type VerificationCheck } from '@atrium/contracts/domains';
import type { DnsClient } from '../../lib/dns.ts';
import { displayDomainName } from './domain-name.ts';

const MAX_SHOWN = 20;
const MAX_VALUE = 500;

/**
 * Looks for `atrium-verification=<token>` among the TXT records at the domain's apex and
 * says which of the four outcomes it is, in words the admin can act on.
 */
export async function checkVerificationRecord(
  dns: DnsClient,
  domain: { name: string; verification_token: string },
): Promise<VerificationCheck> {
  const expected = `${DOMAIN_VERIFICATION_PREFIX}${domain.verification_token}`;
  const shown = displayDomainName(domain.name);
  const answer = await dns.txt(domain.name);
  const checkedAt = new Date().toISOString();
  if (answer.status === 'failed') {
    return {
      outcome: 'lookup_failed',
      message: `The DNS lookup for ${shown} failed: ${answer.message}. Try again in a few minutes.`,
      found: [],
      failure: answer.failure,
      checkedAt,
    };
  }
  const found = answer.status === 'found' ? answer.records.map((v) => v.trim()) : [];
  if (found.length === 0) {
    return {
      outcome: 'no_record',
      message: `No TXT record was found at ${shown}. DNS changes can take time to propagate; try again in a few minutes.`,
      found: [],
      failure: null,
      checkedAt,
    };
  }
  if (found.includes(expected)) {
    return { outcome: 'verified', message: `${shown} is verified.`, found: [], failure: null, checkedAt };
  }
  const visible = found
    .slice(0, MAX_SHOWN)
    .map((v) => (v.length > MAX_VALUE ? `${v.slice(0, MAX_VALUE)}…` : v));
  return {
    outcome: 'mismatch',
    message: `TXT records were found at ${shown}, but none is ${expected}. Found: ${visible.map((v) => `"${v}"`).join(', ')}.`,
    found: visible,
    failure: null,
    checkedAt,
  };
}
