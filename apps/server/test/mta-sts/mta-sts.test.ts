import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { DnsMappingRecord } from '@atrium/contracts/domains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAIL_CERTIFICATE_SEEN_FILE,
  recordMailCertificateSeen,
} from '../../src/modules/mta-sts/mail-certificate-seen.ts';
import { addDomain, addVerifiedDomain, dnsMappingOf } from '../domains/domain-helpers.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { createOrganizationWithAdmin, signInAs, type TestSession } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

const MAIL_HOST = 'mail.atrium.test';
let t: TestApp;
let dns: TestDnsServer;
let admin: TestSession;
let verifiedId: string;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  t = await createTestApp({
    env: { DNS_SERVERS: dns.address, SITE_BASE_DOMAIN: 'atrium.test', MAIL_HOST },
  });
  const org = await createOrganizationWithAdmin(t.db, { siteName: 'acme' });
  admin = await signInAs(t.db, org.admin);
  verifiedId = (await addVerifiedDomain(t.app, admin, dns, 'example.org')).id;
  await addDomain(t.app, admin, 'pending.example');
});
afterAll(async () => {
  await t.close();
  await dns.close();
});

const policyAt = (host: string) =>
  t.app.inject({ url: '/.well-known/mta-sts.txt', headers: { host, 'x-forwarded-proto': 'https' } });

const fields = (text: string) =>
  Object.fromEntries(
    text
      .split('\r\n')
      .filter(Boolean)
      .map((line) => line.split(': ') as [string, string]),
  );

const record = (records: DnsMappingRecord[], purpose: string) => records.find((r) => r.purpose === purpose)!;

describe('MTA-STS policy at mta-sts.<domain>', () => {
  it('serves a verified domain the testing policy as text/plain with CRLF lines, without a session', async () => {
    const response = await policyAt('mta-sts.example.org');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain\b/);
    expect(response.body).toBe(`version: STSv1\r\nmode: testing\r\nmx: ${MAIL_HOST}\r\nmax_age: 86400\r\n`);
  });

  it.each(['mta-sts.pending.example', 'mta-sts.unknown.example', 'example.org', 'acme.atrium.test'])(
    'answers 404 at %j: an unverified or unknown domain, or no mta-sts name',
    async (host) => {
      const response = await policyAt(host);
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain('STSv1');
    },
  );

  it('is rate limited per client address, another address still served', async () => {
    const from = (remoteAddress: string) =>
      t.app.inject({
        url: '/.well-known/mta-sts.txt',
        headers: { host: 'mta-sts.example.org' },
        remoteAddress,
      });
    const answers: number[] = [];
    for (let i = 0; i < 61; i++) answers.push((await from('203.0.113.25')).statusCode);
    expect(answers.slice(0, 60).every((status) => status === 200)).toBe(true);
    expect(answers[60]).toBe(429);
    expect((await from('203.0.113.26')).statusCode).toBe(200);
  });

  it('lists the records whose id is the served policy’s, checks them, and moves to enforce once doctor saw the certificate', async () => {
    const before = await dnsMappingOf(t.app, admin, verifiedId);
    const sts = record(before.records, 'mta_sts');
    expect(sts).toMatchObject({ host: '_mta-sts.example.org', type: 'TXT', status: 'missing' });
    expect(record(before.records, 'mta_sts_host')).toMatchObject({
      host: 'mta-sts.example.org',
      type: 'CNAME',
      value: MAIL_HOST,
      status: 'missing',
    });
    expect(record(before.records, 'tls_reports')).toMatchObject({
      host: '_smtp._tls.example.org',
      value: 'v=TLSRPTv1; rua=mailto:postmaster@example.org',
    });

    // The admin publishes what the domain page lists (a TXT record of another kind beside it).
    dns.set('_mta-sts.example.org', { TXT: ['unrelated=1', sts.value] });
    dns.set('mta-sts.example.org', { CNAME: `${MAIL_HOST}.` });
    dns.set('_smtp._tls.example.org', { TXT: [record(before.records, 'tls_reports').value] });
    const published = await dnsMappingOf(t.app, admin, verifiedId);
    for (const purpose of ['mta_sts', 'mta_sts_host', 'tls_reports']) {
      expect(record(published.records, purpose).status, purpose).toBe('ok');
    }

    await recordMailCertificateSeen(t.config.dataDir, {
      mailHost: MAIL_HOST,
      seenAt: new Date().toISOString(),
      validTo: new Date(Date.now() + 60 * 86_400_000).toISOString(),
    });
    try {
      const response = await policyAt('MTA-STS.Example.org');
      expect(fields(response.body)).toEqual({
        version: 'STSv1',
        mode: 'enforce',
        mx: MAIL_HOST,
        max_age: '604800',
      });
      // The policy changed, so its id did: the published record is now out of date.
      const after = await dnsMappingOf(t.app, admin, verifiedId);
      expect(record(after.records, 'mta_sts').value).not.toBe(sts.value);
      expect(record(after.records, 'mta_sts').status).toBe('different');
    } finally {
      await rm(path.join(t.config.dataDir, MAIL_CERTIFICATE_SEEN_FILE), { force: true });
    }
  });
});
