import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestDnsServer } from '../support/dns-server.ts';
import { createOrganizationWithAdmin, signInAs } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, addVerifiedDomain } from './domain-helpers.ts';

let t: TestApp;
let dns: TestDnsServer;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  t = await createTestApp({ env: { DNS_SERVERS: dns.address, SITE_BASE_DOMAIN: 'atrium.test' } });
  const org = await createOrganizationWithAdmin(t.db, { siteName: 'acme' });
  const admin = await signInAs(t.db, org.admin);
  await addVerifiedDomain(t.app, admin, dns, 'bücher.de');
  await addDomain(t.app, admin, 'pending.example');
});
afterAll(async () => {
  await t.close();
  await dns.close();
});

const ask = (domain: string) =>
  t.app.inject({ url: `/api/proxy-hosts/check?domain=${encodeURIComponent(domain)}` });

describe('proxy host check (Caddy on_demand_tls ask)', () => {
  it.each([
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['apps.xn--bcher-kva.de', 'apps.xn--bcher-kva.de'],
    ['APPS.Bücher.de.', 'apps.xn--bcher-kva.de'],
    ['acme.atrium.test', 'acme.atrium.test'],
    // Thunderbird's and Outlook's names, and MAIL_HOST where devices reach calendars and contacts.
    ['autoconfig.bücher.de', 'autoconfig.xn--bcher-kva.de'],
    ['autodiscover.xn--bcher-kva.de', 'autodiscover.xn--bcher-kva.de'],
    ['mail.atrium.test', 'mail.atrium.test'],
    // Where the MTA-STS policy is served.
    ['mta-sts.bücher.de', 'mta-sts.xn--bcher-kva.de'],
  ])('answers 200 for %j, a host Atrium serves, without a session', async (domain, host) => {
    const response = await ask(domain);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ host });
  });

  it.each([
    'pending.example',
    'apps.pending.example',
    'autoconfig.pending.example',
    'mta-sts.pending.example',
    'other.xn--bcher-kva.de',
    'nobody.atrium.test',
    'deep.acme.atrium.test',
    'example.net',
  ])('answers 404 for %j', async (domain) => {
    const response = await ask(domain);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'not_found', message: 'Host was not found' } });
  });

  it('answers 400 naming the problem when the host is missing or malformed', async () => {
    const missing = await t.app.inject({ url: '/api/proxy-hosts/check' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.fields).toHaveProperty('domain');
    const malformed = await ask('a b.example');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.fields).toEqual({ domain: 'Give a host name such as apps.example.com' });
  });
});
