import type { MailDomainsResponse } from '@atrium/contracts/mail-settings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDomain, addVerifiedDomain } from '../domains/domain-helpers.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let dns: TestDnsServer;
let admin: TestSession;
let otherAdmin: TestSession;
let member: TestSession;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  t = await createTestApp({
    env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '500', MAIL_HOST: 'mail.atrium.test' },
  });
  const org = await createOrganizationWithAdmin(t.db);
  admin = await signInAs(t.db, org.admin);
  member = await signInAs(t.db, await createUser(t.db, org.id));
  otherAdmin = await signInAs(t.db, (await createOrganizationWithAdmin(t.db)).admin);
});
afterAll(async () => {
  await t.close();
  await dns.close();
});

async function mailDomains(session: TestSession) {
  return t.app.inject({ url: '/api/mail/domains', headers: session.headers });
}

describe('Mail Settings: whether mail works for each domain', () => {
  it("gives each verified domain's mail records against DNS, and says when all are published", async () => {
    const ready = await addVerifiedDomain(t.app, admin, dns, 'ready.example');
    const half = await addVerifiedDomain(t.app, admin, dns, 'half.example');
    await addDomain(t.app, admin, 'pending.example');
    const first = (await mailDomains(admin)).json<MailDomainsResponse>();
    const expected = first.domains.find((d) => d.domain.id === ready.id)!.records;
    const value = (purpose: string) => expected.find((r) => r.purpose === purpose)!.value;
    dns.set('ready.example', {
      TXT: [ready.verificationRecord.value, value('spf')],
      MX: [{ exchange: 'mail.atrium.test', priority: 10 }],
    });
    dns.set('atrium._domainkey.ready.example', { TXT: [value('dkim')] });
    dns.set('_dmarc.ready.example', { TXT: [value('dmarc')] });
    dns.set('half.example', {
      TXT: [half.verificationRecord.value],
      MX: [{ exchange: 'mx.other-provider.example', priority: 5 }],
    });

    const response = await mailDomains(admin);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<MailDomainsResponse>();
    expect(body.mailConfigured).toBe(false);
    expect(body.mailHost).toBe('mail.atrium.test');
    // Verified domains only; the pending one has no mail yet.
    expect(body.domains.map((d) => d.domain.name).sort()).toEqual(['half.example', 'ready.example']);
    const byName = Object.fromEntries(body.domains.map((d) => [d.domain.name, d]));
    expect(byName['ready.example']!.ready).toBe(true);
    expect(byName['ready.example']!.records.map((r) => [r.purpose, r.status])).toEqual([
      ['mx', 'ok'],
      ['spf', 'ok'],
      ['dkim', 'ok'],
      ['dmarc', 'ok'],
    ]);
    // The site's CNAME is not a mail record.
    expect(byName['half.example']!.ready).toBe(false);
    expect(byName['half.example']!.records.map((r) => [r.purpose, r.status])).toEqual([
      ['mx', 'different'],
      ['spf', 'missing'],
      ['dkim', 'missing'],
      ['dmarc', 'missing'],
    ]);
    expect(byName['half.example']!.records[0]!.found).toEqual(['5 mx.other-provider.example']);
  });

  it("shows another organisation's admin only their own domains, and is for admins only", async () => {
    const other = (await mailDomains(otherAdmin)).json<MailDomainsResponse>();
    expect(other.domains).toEqual([]);
    expect((await mailDomains(member)).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/mail/domains' })).statusCode).toBe(401);
  });
});
