import type { DnsMapping, DnsMappingRecord } from '@atrium/contracts/domains';
import { describe, expect, it } from 'vitest';
import { createDnsClient } from '../../src/lib/dns.ts';
import { formatOutcome, runChecks } from '../../src/operator/doctor/check.ts';
import { domainChecks } from '../../src/operator/doctor/domain-checks.ts';
import { useAdminWorldWithDns } from '../support/admin-world.ts';
import { pyspfResult } from '../support/pyspf.ts';
import { addVerifiedDomain, dnsMappingOf } from './domain-helpers.ts';

// Issue 40, item 4: a domain's `include:<MAIL_HOST>` only passes a receiver's SPF check once
// MAIL_HOST publishes an SPF record of its own; the domain page and doctor evaluate SPF as a
// receiver does, from the mail host's address, and say which record is missing.
const MAIL_HOST = 'mail.atrium.test';
/** The mail host's public address: loopback, where the test's DNS server says it is. */
const HOST_ADDRESS = '127.0.0.1';

const t = useAdminWorldWithDns({
  env: { DNS_TIMEOUT_MS: '1000', SITE_BASE_DOMAIN: 'atrium.test', MAIL_HOST },
  org: { siteName: 'acme' },
});

const mapping = (id: string): Promise<DnsMapping> => dnsMappingOf(t.app, t.adminSession, id);

const record = (m: DnsMapping, purpose: string) => m.records.find((r) => r.purpose === purpose)!;

/** Every mail record of the domain's mapping published as the domain page shows it. */
async function publishDomainRecords(id: string, name: string, verification: string): Promise<DnsMapping> {
  const expected = await mapping(id);
  const value = (purpose: string) => record(expected, purpose).value;
  t.dns.set(name, { TXT: [verification, value('spf')], MX: [{ exchange: MAIL_HOST, priority: 10 }] });
  t.dns.set(record(expected, 'dkim').host, { TXT: [value('dkim')] });
  t.dns.set(`_dmarc.${name}`, { TXT: [value('dmarc')] });
  return expected;
}

/** doctor's line for the domain, as the operator reads it. */
async function doctorLine(name: string): Promise<string> {
  const checks = await domainChecks({ db: t.db, config: t.config, dns: createDnsClient(t.config) });
  const outcomes = await runChecks(checks);
  return formatOutcome(outcomes.find((o) => o.name === `Domain ${name}`)!);
}

describe('SPF, evaluated as a receiver does', () => {
  it("says the domain's include does not evaluate while the mail host publishes no SPF record, and names it", async () => {
    const domain = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'include-only.example');
    const expected = await publishDomainRecords(domain.id, domain.name, domain.verificationRecord.value);
    expect(record(expected, 'spf').value).toBe(`v=spf1 include:${MAIL_HOST} ~all`);
    // The host's A record is published (install prints it); its SPF record is not.
    t.dns.set(MAIL_HOST, { A: [HOST_ADDRESS] });

    const spf = record(await mapping(domain.id), 'spf');
    expect(spf).toMatchObject({
      status: 'does_not_pass',
      found: [`v=spf1 include:${MAIL_HOST} ~all`],
      fix: { host: MAIL_HOST, type: 'TXT', value: 'v=spf1 a -all' },
    } satisfies Partial<DnsMappingRecord>);
    expect(spf.problem).toBe(
      `A receiver's SPF check gives permerror for mail from ${MAIL_HOST} (${HOST_ADDRESS}): ` +
        `${MAIL_HOST} publishes no SPF record, so include:${MAIL_HOST} does not evaluate. ` +
        `The mail service's operator publishes ${MAIL_HOST} TXT "v=spf1 a -all".`,
    );
    // The other mail records are in place: only SPF is wrong.
    expect(record(await mapping(domain.id), 'mx').status).toBe('ok');

    const line = await doctorLine(domain.name);
    expect(line).toMatch(
      /^✗ Domain include-only\.example: SPF does not pass at include-only\.example: .*permerror/,
    );
    expect(line).toContain(`— fix: publish ${MAIL_HOST}. TXT "v=spf1 a -all"`);
    expect(line).not.toMatch(/MX|DKIM|DMARC/);

    // pyspf agrees: the include alone is a permanent error.
    const pyspf = await pyspfResult(t.dns.port, {
      ip: HOST_ADDRESS,
      sender: `postmaster@${domain.name}`,
      helo: MAIL_HOST,
    });
    expect(pyspf.result, pyspf.explanation).toBe('permerror');
  });

  it('passes once the mail host publishes the record Atrium names, and pyspf agrees', async () => {
    const domain = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'both.example');
    await publishDomainRecords(domain.id, domain.name, domain.verificationRecord.value);
    t.dns.set(MAIL_HOST, { A: [HOST_ADDRESS] });
    const fix = record(await mapping(domain.id), 'spf').fix!;
    t.dns.set(MAIL_HOST, { A: [HOST_ADDRESS], TXT: [fix.value] });

    const spf = record(await mapping(domain.id), 'spf');
    expect(spf).toMatchObject({ status: 'ok', problem: null, fix: null });
    expect(await doctorLine(domain.name)).toBe(
      `✓ Domain both.example: MX, DKIM and DMARC published as expected; SPF passes for mail from ${MAIL_HOST}`,
    );

    // An independent evaluator, against the same records on the same DNS server.
    const forDomain = await pyspfResult(t.dns.port, {
      ip: HOST_ADDRESS,
      sender: `postmaster@${domain.name}`,
      helo: MAIL_HOST,
    });
    expect(forDomain.result, forDomain.explanation).toBe('pass');
    // The host's own mail (bounces carry no sender: SPF checks the HELO name, MAIL_HOST).
    const forHost = await pyspfResult(t.dns.port, { ip: HOST_ADDRESS, sender: '', helo: MAIL_HOST });
    expect(forHost.result, forHost.explanation).toBe('pass');
    // Another address is not the mail host: the domain's ~all, not a pass.
    const stranger = await pyspfResult(t.dns.port, {
      ip: '192.0.2.99',
      sender: `postmaster@${domain.name}`,
      helo: 'stranger.example',
    });
    expect(stranger.result).toBe('softfail');
  });

  it('judges the record, not its text: the host authorised by address passes; a -all before the include fails', async () => {
    const domain = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'by-address.example');
    t.dns.set(MAIL_HOST, { A: [HOST_ADDRESS], TXT: ['v=spf1 a -all'] });
    t.dns.set(domain.name, { TXT: [domain.verificationRecord.value, `v=spf1 ip4:${HOST_ADDRESS} -all`] });
    expect(record(await mapping(domain.id), 'spf')).toMatchObject({ status: 'ok', problem: null });

    t.dns.set(domain.name, { TXT: [domain.verificationRecord.value, `v=spf1 -all include:${MAIL_HOST}`] });
    const spf = record(await mapping(domain.id), 'spf');
    expect(spf).toMatchObject({ status: 'does_not_pass', fix: null });
    expect(spf.problem).toMatch(
      new RegExp(`^A receiver's SPF check gives fail for mail from ${MAIL_HOST} \\(${HOST_ADDRESS}\\): `),
    );
  });

  it('says when the mail host has no address to evaluate SPF for', async () => {
    const domain = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'no-address.example');
    await publishDomainRecords(domain.id, domain.name, domain.verificationRecord.value);
    t.dns.remove(MAIL_HOST);
    expect(record(await mapping(domain.id), 'spf')).toMatchObject({
      status: 'does_not_pass',
      problem: `${MAIL_HOST} has no address (A or AAAA record), so no receiver's SPF check passes its mail: the mail service's operator publishes it`,
    });
  });
});
