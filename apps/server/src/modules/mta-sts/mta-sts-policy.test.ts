import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectedRecords } from '../domains/dns-mapping.ts';
import { zoneFile } from '../domains/zone-file.ts';
import { mtaStsMode, recordMailCertificateSeen } from './mail-certificate-seen.ts';
import { mtaStsPolicy } from './mta-sts-policy.ts';

const MAIL_HOST = 'mail.atrium.example';

describe('MTA-STS policy', () => {
  it('is RFC 8461 key: value lines with CRLF endings, testing for a day', () => {
    const policy = mtaStsPolicy(MAIL_HOST, 'testing');
    expect(policy.text).toBe(`version: STSv1\r\nmode: testing\r\nmx: ${MAIL_HOST}\r\nmax_age: 86400\r\n`);
    expect(policy.id).toMatch(/^[a-z0-9]{1,32}$/);
  });

  it('enforces for a week with another id, and the id follows MAIL_HOST', () => {
    const testing = mtaStsPolicy(MAIL_HOST, 'testing');
    const enforce = mtaStsPolicy(MAIL_HOST, 'enforce');
    expect(enforce.text).toContain('mode: enforce\r\n');
    expect(enforce.text).toContain('max_age: 604800\r\n');
    expect(enforce.id).not.toBe(testing.id);
    expect(mtaStsPolicy('mx.other.example', 'testing').id).not.toBe(testing.id);
    expect(mtaStsPolicy(MAIL_HOST, 'testing').id).toBe(testing.id);
  });

  it("is in the domain's DNS mapping and its zone file", () => {
    const policy = mtaStsPolicy(MAIL_HOST, 'enforce');
    const records = expectedRecords(
      { name: 'example.org', dkimKeys: [], siteName: 'acme' },
      { mailHost: MAIL_HOST, siteBaseDomain: 'atrium.example' },
      'enforce',
    );
    const byPurpose = (purpose: string) => records.find((r) => r.purpose === purpose);
    expect(byPurpose('mta_sts')).toEqual({
      purpose: 'mta_sts',
      host: '_mta-sts.example.org',
      type: 'TXT',
      value: `v=STSv1; id=${policy.id}`,
    });
    expect(byPurpose('mta_sts_host')).toMatchObject({
      host: 'mta-sts.example.org',
      type: 'CNAME',
      value: MAIL_HOST,
    });
    expect(byPurpose('tls_reports')).toMatchObject({
      host: '_smtp._tls.example.org',
      type: 'TXT',
      value: 'v=TLSRPTv1; rua=mailto:postmaster@example.org',
    });
    const zone = zoneFile('example.org', records);
    expect(zone).toContain(`_mta-sts\t3600\tIN\tTXT\t"v=STSv1; id=${policy.id}"`);
    expect(zone).toContain(`mta-sts\t3600\tIN\tCNAME\t${MAIL_HOST}.`);
    expect(zone).toContain('_smtp._tls\t3600\tIN\tTXT\t"v=TLSRPTv1; rua=mailto:postmaster@example.org"');
  });
});

describe('MTA-STS mode', () => {
  const dirs: string[] = [];
  const dataDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'atrium-mta-sts-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('tests until doctor has seen a valid certificate for MAIL_HOST, then enforces until it expires', async () => {
    const dir = await dataDir();
    const config = { dataDir: dir, mailHost: MAIL_HOST };
    expect(await mtaStsMode(config)).toBe('testing');
    const validTo = new Date(Date.now() + 60 * 24 * 60 * 60_000);
    await recordMailCertificateSeen(dir, {
      mailHost: MAIL_HOST,
      seenAt: new Date().toISOString(),
      validTo: validTo.toISOString(),
    });
    expect(await mtaStsMode(config)).toBe('enforce');
    expect(await mtaStsMode({ dataDir: dir, mailHost: 'mx.other.example' })).toBe('testing');
    expect(await mtaStsMode(config, new Date(validTo.getTime() + 1))).toBe('testing');
  });
});
