import type { DnsMapping } from '@atrium/contracts/domains';
import { describe, expect, it } from 'vitest';
import { mtaStsPolicy } from '../../src/modules/mta-sts/mta-sts-policy.ts';
import { useAdminWorldWithDns } from '../support/admin-world.ts';
import { addDomain, addVerifiedDomain, dnsMappingOf } from './domain-helpers.ts';

const t = useAdminWorldWithDns({
  env: { DNS_TIMEOUT_MS: '500', SITE_BASE_DOMAIN: 'atrium.test', MAIL_HOST: 'mail.atrium.test' },
  org: { siteName: 'acme' },
});

const mapping = (id: string): Promise<DnsMapping> => dnsMappingOf(t.app, t.adminSession, id);

/** What devices need (RFC 6186 and 6764 SRV records, Thunderbird's and Outlook's names), all missing. */
function deviceRecords(domain: string) {
  const missing = (purpose: string, host: string, type: string, value: string) => ({
    [purpose]: {
      purpose,
      host,
      type,
      value,
      valueStrings: [value],
      status: 'missing',
      found: [],
      problem: null,
      fix: null,
    },
  });
  return {
    ...missing('imaps', `_imaps._tcp.${domain}`, 'SRV', '0 1 993 mail.atrium.test'),
    ...missing('submission', `_submission._tcp.${domain}`, 'SRV', '0 1 587 mail.atrium.test'),
    ...missing('caldavs', `_caldavs._tcp.${domain}`, 'SRV', '0 1 443 mail.atrium.test'),
    ...missing('carddavs', `_carddavs._tcp.${domain}`, 'SRV', '0 1 443 mail.atrium.test'),
    ...missing('autoconfig', `autoconfig.${domain}`, 'CNAME', 'acme.atrium.test'),
    ...missing('autodiscover', `autodiscover.${domain}`, 'CNAME', 'acme.atrium.test'),
  };
}

/** MTA-STS and TLS reporting (mta-sts.test.ts fetches the policy whose id this is), all missing. */
function mtaStsRecords(domain: string) {
  const missing = (purpose: string, host: string, type: string, value: string) => ({
    [purpose]: {
      purpose,
      host,
      type,
      value,
      valueStrings: [value],
      status: 'missing',
      found: [],
      problem: null,
      fix: null,
    },
  });
  const { id } = mtaStsPolicy('mail.atrium.test', 'testing');
  return {
    ...missing('mta_sts', `_mta-sts.${domain}`, 'TXT', `v=STSv1; id=${id}`),
    ...missing('mta_sts_host', `mta-sts.${domain}`, 'CNAME', 'mail.atrium.test'),
    ...missing('tls_reports', `_smtp._tls.${domain}`, 'TXT', `v=TLSRPTv1; rua=mailto:postmaster@${domain}`),
  };
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
        fix: null,
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
        fix: null,
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
        fix: null,
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
        fix: null,
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
        fix: null,
      },
      ...deviceRecords('mapped.example'),
      ...mtaStsRecords('mapped.example'),
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
    t.dns.set('_imaps._tcp.partly.example', {
      SRV: [{ priority: 5, weight: 0, port: 993, target: 'mail.atrium.test' }],
    });
    t.dns.set('_submission._tcp.partly.example', {
      SRV: [{ priority: 0, weight: 1, port: 465, target: 'mail.atrium.test' }],
    });
    t.dns.set('autoconfig.partly.example', { CNAME: 'acme.atrium.test.' });

    const records = byPurpose(await mapping(domain.id));
    expect(records.mx).toMatchObject({ status: 'ok', found: ['10 mail.atrium.test'] });
    expect(records.spf).toMatchObject({
      status: 'different',
      found: ['v=spf1 include:_spf.google.com ~all'],
    });
    expect(records.dkim).toMatchObject({ status: 'ok', found: [expected.dkim!.value] });
    expect(records.dmarc).toMatchObject({ status: 'different', found: ['v=DMARC1; p=none'] });
    expect(records.site).toMatchObject({ status: 'different', found: ['someone-else.example.net'] });
    // SRV: priority and weight are the publisher's; the port and target must match.
    expect(records.imaps).toMatchObject({ status: 'ok', found: ['5 0 993 mail.atrium.test'] });
    expect(records.submission).toMatchObject({ status: 'different', found: ['0 1 465 mail.atrium.test'] });
    expect(records.caldavs).toMatchObject({ status: 'missing' });
    expect(records.autoconfig).toMatchObject({ status: 'ok', found: ['acme.atrium.test'] });
    expect(records.autodiscover).toMatchObject({ status: 'missing' });

    t.dns.set('partly.example', {
      TXT: [domain.verificationRecord.value, 'v=spf1 include:mail.atrium.test include:_spf.google.com ~all'],
      MX: [{ exchange: 'mail.atrium.test.', priority: 10 }],
    });
    t.dns.set('_dmarc.partly.example', {
      TXT: ['v=DMARC1;p=quarantine; pct=100; rua=mailto:dmarc@partly.example'],
    });
    t.dns.set('apps.partly.example', { CNAME: 'ACME.atrium.test' });
    const srv = (port: number) => ({ SRV: [{ priority: 0, weight: 1, port, target: 'mail.atrium.test' }] });
    t.dns.set('_submission._tcp.partly.example', srv(587));
    t.dns.set('_caldavs._tcp.partly.example', srv(443));
    t.dns.set('_carddavs._tcp.partly.example', srv(443));
    t.dns.set('autodiscover.partly.example', { CNAME: 'acme.atrium.test' });
    t.dns.set('_mta-sts.partly.example', { TXT: [expected.mta_sts!.value] });
    t.dns.set('mta-sts.partly.example', { CNAME: 'mail.atrium.test.' });
    // Tags compare in any order and spacing, like DMARC's.
    t.dns.set('_smtp._tls.partly.example', { TXT: ['v=TLSRPTv1;rua=mailto:postmaster@partly.example'] });
    // SPF passes only once the mail host has an address and an SPF record of its own (spf-check.test.ts).
    t.dns.set('mail.atrium.test', { A: ['127.0.0.1'], TXT: ['v=spf1 a -all'] });
    const fixed = byPurpose(await mapping(domain.id));
    expect(Object.values(fixed).map((r) => [r.purpose, r.status])).toEqual([
      ['mx', 'ok'],
      ['spf', 'ok'],
      ['dkim', 'ok'],
      ['dmarc', 'ok'],
      ['site', 'ok'],
      ['imaps', 'ok'],
      ['submission', 'ok'],
      ['caldavs', 'ok'],
      ['carddavs', 'ok'],
      ['autoconfig', 'ok'],
      ['autodiscover', 'ok'],
      ['mta_sts', 'ok'],
      ['mta_sts_host', 'ok'],
      ['tls_reports', 'ok'],
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
