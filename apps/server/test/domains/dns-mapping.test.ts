import type { DnsMapping } from '@atrium/contracts/domains';
import { describe, expect, it } from 'vitest';
import { useAdminWorldWithDns } from '../support/admin-world.ts';
import { addDomain, addVerifiedDomain } from './domain-helpers.ts';

const t = useAdminWorldWithDns({
  env: { DNS_TIMEOUT_MS: '500', SITE_BASE_DOMAIN: 'atrium.test', MAIL_HOST: 'mail.atrium.test' },
  org: { siteName: 'acme' },
});

async function mapping(id: string): Promise<DnsMapping> {
  const response = await t.app.inject({
    url: `/api/domains/${id}/dns-records`,
    headers: t.adminSession.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<DnsMapping>();
}

const byPurpose = (m: DnsMapping) => Object.fromEntries(m.records.map((r) => [r.purpose, r]));

describe('DNS mapping', () => {
  it('lists every record to publish, all missing before anything is published', async () => {
    const domain = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'mapped.example');
    const dkim = await t.db
      .selectFrom('domains')
      .select('dkim_public_key')
      .where('id', '=', domain.id)
      .executeTakeFirstOrThrow();
    const dkimValue = `v=DKIM1; k=rsa; p=${dkim.dkim_public_key}`;
    expect(dkimValue.length).toBeGreaterThan(255);
    expect(dkimValue.length).toBeLessThanOrEqual(510);
    const records = byPurpose(await mapping(domain.id));
    expect(records).toEqual({
      mx: {
        purpose: 'mx',
        host: 'mapped.example',
        type: 'MX',
        value: '10 mail.atrium.test',
        valueStrings: ['10 mail.atrium.test'],
        status: 'missing',
        found: [],
        problem: null,
      },
      // The apex holds the verification TXT record, which is not an SPF record.
      spf: {
        purpose: 'spf',
        host: 'mapped.example',
        type: 'TXT',
        value: 'v=spf1 include:mail.atrium.test ~all',
        valueStrings: ['v=spf1 include:mail.atrium.test ~all'],
        status: 'missing',
        found: [],
        problem: null,
      },
      dkim: {
        purpose: 'dkim',
        host: 'atrium._domainkey.mapped.example',
        type: 'TXT',
        value: dkimValue,
        // Longer than one TXT string holds: also given as 255-byte strings to enter one after another.
        valueStrings: [dkimValue.slice(0, 255), dkimValue.slice(255)],
        status: 'missing',
        found: [],
        problem: null,
      },
      dmarc: {
        purpose: 'dmarc',
        host: '_dmarc.mapped.example',
        type: 'TXT',
        value: 'v=DMARC1; p=quarantine; rua=mailto:dmarc@mapped.example',
        valueStrings: ['v=DMARC1; p=quarantine; rua=mailto:dmarc@mapped.example'],
        status: 'missing',
        found: [],
        problem: null,
      },
      site: {
        purpose: 'site',
        host: 'apps.mapped.example',
        type: 'CNAME',
        value: 'acme.atrium.test',
        valueStrings: ['acme.atrium.test'],
        status: 'missing',
        found: [],
        problem: null,
      },
    });
  });

  it('marks published records ok, and wrong ones different with the value found', async () => {
    const domain = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'partly.example');
    const expected = byPurpose(await mapping(domain.id));
    t.dns.set('partly.example', {
      TXT: [domain.verificationRecord.value, 'v=spf1 include:_spf.google.com ~all'],
      MX: [{ exchange: 'mail.atrium.test', priority: 10 }],
    });
    // A long DKIM value comes back in 255-byte pieces; it must still compare equal.
    t.dns.set('atrium._domainkey.partly.example', { TXT: [expected.dkim!.value] });
    t.dns.set('_dmarc.partly.example', { TXT: ['v=DMARC1; p=none'] });
    t.dns.set('apps.partly.example', { CNAME: 'someone-else.example.net' });

    const records = byPurpose(await mapping(domain.id));
    expect(records.mx).toMatchObject({ status: 'ok', found: ['10 mail.atrium.test'] });
    expect(records.spf).toMatchObject({
      status: 'different',
      found: ['v=spf1 include:_spf.google.com ~all'],
    });
    expect(records.dkim).toMatchObject({ status: 'ok', found: [expected.dkim!.value] });
    expect(records.dmarc).toMatchObject({ status: 'different', found: ['v=DMARC1; p=none'] });
    expect(records.site).toMatchObject({ status: 'different', found: ['someone-else.example.net'] });

    t.dns.set('partly.example', {
      TXT: [domain.verificationRecord.value, 'v=spf1 include:mail.atrium.test include:_spf.google.com ~all'],
      MX: [{ exchange: 'mail.atrium.test.', priority: 10 }],
    });
    t.dns.set('_dmarc.partly.example', {
      TXT: ['v=DMARC1;p=quarantine; pct=100; rua=mailto:dmarc@partly.example'],
    });
    t.dns.set('apps.partly.example', { CNAME: 'ACME.atrium.test' });
    const fixed = byPurpose(await mapping(domain.id));
    expect(Object.values(fixed).map((r) => [r.purpose, r.status])).toEqual([
      ['mx', 'ok'],
      ['spf', 'ok'],
      ['dkim', 'ok'],
      ['dmarc', 'ok'],
      ['site', 'ok'],
    ]);
  });

  it('says which lookups failed instead of calling the record missing', async () => {
    const domain = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'flaky.example');
    t.dns.failWithServfail('_dmarc.flaky.example');
    t.dns.neverAnswer('apps.flaky.example');
    const records = byPurpose(await mapping(domain.id));
    expect(records.dmarc).toMatchObject({
      status: 'lookup_failed',
      problem: 'The lookup failed: the DNS server reported a server failure (SERVFAIL)',
    });
    expect(records.site).toMatchObject({
      status: 'lookup_failed',
      problem: 'The lookup failed: the DNS server did not answer within 0.5 seconds',
    });
  });

  it('is only for verified domains', async () => {
    const pending = await addDomain(t.app, t.adminSession, 'pending-map.example');
    const response = await t.app.inject({
      url: `/api/domains/${pending.id}/dns-records`,
      headers: t.adminSession.headers,
    });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.message).toBe(
      'Verify pending-map.example first: the DNS mapping is for verified domains',
    );
  });
});
