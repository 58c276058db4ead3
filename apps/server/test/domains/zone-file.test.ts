import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Resolver } from 'node:dns/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainDetail } from '@atrium/contracts/domains';
import { generateDkimKey } from '../../src/modules/domains/dkim.ts';
import { useAdminWorldWithDns } from '../support/admin-world.ts';
import { TestBindServer } from '../support/bind-server.ts';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';
import { addDomain, addVerifiedDomain, dnsMappingOf } from './domain-helpers.ts';

// Debian's bind9-utils installs it in /usr/bin.
const NAMED_CHECKZONE = process.env.NAMED_CHECKZONE_PATH ?? 'named-checkzone';

const t = useAdminWorldWithDns({
  env: { DNS_TIMEOUT_MS: '500', SITE_BASE_DOMAIN: 'atrium.test', MAIL_HOST: 'mail.atrium.test' },
  org: { siteName: 'acme' },
});

const NAME = 'zoned.example';
let domain: DomainDetail;
let dir: string;

beforeAll(async () => {
  domain = await addVerifiedDomain(t.app, t.adminSession, t.dns, NAME);
  dir = mkdtempSync(path.join(tmpdir(), 'atrium-zone-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function download(id: string) {
  const response = await t.app.inject({
    url: `/api/domains/${id}/zone-file`,
    headers: t.adminSession.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response;
}

/** The lines that are records (not comments, not directives). */
const recordLines = (text: string) => text.split('\n').filter((l) => l !== '' && !/^[;$]/.test(l));

/** The zone as a DNS host holds it: its own SOA and NS, then the downloaded fragment. */
function withSoa(zone: string, fragment: string): string[] {
  return [
    `$ORIGIN ${zone}.`,
    `@ 3600 IN SOA ns.${zone}. hostmaster.${zone}. 1 3600 600 86400 300`,
    `@ 3600 IN NS ns.${zone}.`,
    'ns 3600 IN A 127.0.0.1',
    fragment,
  ];
}

describe('the zone file of a domain', () => {
  it('downloads as <domain>.zone: $ORIGIN, and one line per record the domain page lists', async () => {
    const response = await download(domain.id);
    expect(response.headers['content-type']).toBe('text/dns; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${NAME}.zone"`);
    expect(response.headers['cache-control']).toBe('no-store');

    const text = response.body;
    const { records } = await dnsMappingOf(t.app, t.adminSession, domain.id);
    expect(records).toHaveLength(14);
    expect(text).toContain(`$ORIGIN ${NAME}.\n$TTL 3600\n`);
    const dkimKey = records.find((r) => r.purpose === 'dkim')!.value;
    const [first, second] = [dkimKey.slice(0, 255), dkimKey.slice(255)];
    // The ownership record, then the mapping's 14 in the page's order.
    expect(recordLines(text)).toEqual([
      `@\t3600\tIN\tTXT\t"${domain.verificationRecord.value}"`,
      '@\t3600\tIN\tMX\t10 mail.atrium.test.',
      '@\t3600\tIN\tTXT\t"v=spf1 include:mail.atrium.test ~all"',
      `atrium._domainkey\t3600\tIN\tTXT\t"${first}" "${second}"`,
      `_dmarc\t3600\tIN\tTXT\t"v=DMARC1; p=quarantine; rua=mailto:dmarc@${NAME}"`,
      'apps\t3600\tIN\tCNAME\tacme.atrium.test.',
      '_imaps._tcp\t3600\tIN\tSRV\t0 1 993 mail.atrium.test.',
      '_submission._tcp\t3600\tIN\tSRV\t0 1 587 mail.atrium.test.',
      '_caldavs._tcp\t3600\tIN\tSRV\t0 1 443 mail.atrium.test.',
      '_carddavs._tcp\t3600\tIN\tSRV\t0 1 443 mail.atrium.test.',
      'autoconfig\t3600\tIN\tCNAME\tacme.atrium.test.',
      'autodiscover\t3600\tIN\tCNAME\tacme.atrium.test.',
      `_mta-sts\t3600\tIN\tTXT\t"${records.find((r) => r.purpose === 'mta_sts')!.value}"`,
      'mta-sts\t3600\tIN\tCNAME\tmail.atrium.test.',
      `_smtp._tls\t3600\tIN\tTXT\t"v=TLSRPTv1; rua=mailto:postmaster@${NAME}"`,
    ]);
    expect(second.length).toBeGreaterThan(0);
    expect(text).toContain('; DKIM key: receivers check the signature of outgoing mail with it\n');
  });

  it("passes BIND's named-checkzone once the zone's own SOA and NS are put before it", async () => {
    const file = path.join(dir, `${NAME}.zone`);
    writeFileSync(file, withSoa(NAME, (await download(domain.id)).body).join('\n'));
    const result = spawnSync(NAMED_CHECKZONE, [NAME, file], { encoding: 'utf8', timeout: 20_000 });
    if (result.error) {
      throw new Error(
        `This test needs BIND's named-checkzone (Debian: apt-get install bind9-utils; or set NAMED_CHECKZONE_PATH): ${result.error.message}`,
      );
    }
    expect(result.stdout + result.stderr).toMatch(/loaded serial 1\s+OK/);
    expect(result.status).toBe(0);
  });

  it('loads in BIND, which answers the DKIM key joined back into the value the page shows', async () => {
    const text = (await download(domain.id)).body;
    const bind = await TestBindServer.start(NAME, [text]);
    try {
      const resolver = new Resolver({ timeout: 2_000, tries: 2 });
      resolver.setServers([`127.0.0.1:${bind.port}`]);
      const { records } = await dnsMappingOf(t.app, t.adminSession, domain.id);
      const expected = (purpose: string) => records.find((r) => r.purpose === purpose)!;

      const dkim = await resolver.resolveTxt(`atrium._domainkey.${NAME}`);
      expect(dkim).toHaveLength(1);
      expect(dkim[0]!.map((s) => s.length)).toEqual([255, expected('dkim').value.length - 255]);
      expect(dkim[0]!.join('')).toBe(expected('dkim').value);

      const apex = (await resolver.resolveTxt(NAME)).map((strings) => strings.join('')).sort();
      expect(apex).toEqual([domain.verificationRecord.value, expected('spf').value].sort());
      expect(await resolver.resolveMx(NAME)).toMatchObject([{ exchange: 'mail.atrium.test', priority: 10 }]);
      expect(await resolver.resolveSrv(`_imaps._tcp.${NAME}`)).toMatchObject([
        { name: 'mail.atrium.test', port: 993, priority: 0, weight: 1 },
      ]);
      expect(await resolver.resolveCname(`autoconfig.${NAME}`)).toEqual(['acme.atrium.test']);
      expect((await resolver.resolveTxt(`_dmarc.${NAME}`))[0]!.join('')).toBe(expected('dmarc').value);
      expect((await resolver.resolveTxt(`_mta-sts.${NAME}`))[0]!.join('')).toBe(expected('mta_sts').value);
      expect(await resolver.resolveCname(`mta-sts.${NAME}`)).toEqual(['mail.atrium.test']);
      expect((await resolver.resolveTxt(`_smtp._tls.${NAME}`))[0]!.join('')).toBe(
        expected('tls_reports').value,
      );
    } finally {
      await bind.close();
    }
  });

  it('lists both DKIM keys while a rotation publishes the next one', async () => {
    const other = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'rotating.example');
    const next = await generateDkimKey(t.config.secret);
    await t.db
      .updateTable('domains')
      .set({ dkim_next_selector: 'atrium2', dkim_next_public_key: next.publicKey })
      .where('id', '=', other.id)
      .execute();
    const lines = recordLines((await download(other.id)).body);
    expect(lines.filter((l) => /\tTXT\t"v=DKIM1;/.test(l)).map((l) => l.split('\t')[0])).toEqual([
      'atrium._domainkey',
      'atrium2._domainkey',
    ]);
  });

  it('is refused for a domain not verified yet, like the DNS mapping', async () => {
    const pending = await addDomain(t.app, t.adminSession, 'not-yet.example');
    const response = await t.app.inject({
      url: `/api/domains/${pending.id}/zone-file`,
      headers: t.adminSession.headers,
    });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('domain_not_verified');
  });

  it('is for admins only', async () => {
    const member = await signInAs(t.db, await createUser(t.db, t.org.id));
    const url = `/api/domains/${domain.id}/zone-file`;
    expect((await t.app.inject({ url, headers: member.headers })).statusCode).toBe(403);
    expect((await t.app.inject({ url })).statusCode).toBe(401);
  });

  it("answers 404 for another organisation's admin", async () => {
    const otherAdmin = await signInAs(t.db, (await createOrganizationWithAdmin(t.db)).admin);
    const response = await t.app.inject({
      url: `/api/domains/${domain.id}/zone-file`,
      headers: otherAdmin.headers,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { code: 'not_found', message: 'Domain was not found' } });
  });
});
