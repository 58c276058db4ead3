import type { DnsMappingRecord } from '@atrium/contracts/domains';
import type { DnsAnswer, DnsClient } from '../../lib/dns.ts';
import { mailHostSpfRecord } from './mail-host-spf.ts';
import { evaluateSpf } from './spf-evaluation.ts';

/**
 * A domain's SPF record judged as a receiver judges it: SPF evaluated for mail from each of the
 * mail host's addresses (its A and AAAA records), not the text compared. A record that names
 * `include:<MAIL_HOST>` is still no use while MAIL_HOST publishes no SPF record (`permerror`), and
 * one that authorises the host otherwise (`ip4:`) is fine. `record` is the text comparison's
 * outcome: a missing record or a failed lookup already says what to do.
 */
export async function evaluateDomainSpf(
  dns: DnsClient,
  record: DnsMappingRecord,
  mailHost: string,
): Promise<DnsMappingRecord> {
  if (record.status === 'missing' || record.status === 'lookup_failed') return record;
  const notPassing = record.status === 'ok' ? 'does_not_pass' : record.status;
  const addresses = await mailHostAddresses(dns, mailHost);
  if (addresses.status === 'failed') {
    return {
      ...record,
      status: 'lookup_failed',
      problem: `The lookup of ${mailHost}'s address failed: ${addresses.message}`,
    };
  }
  if (addresses.status === 'none') {
    return {
      ...record,
      status: notPassing,
      problem: `${mailHost} has no address (A or AAAA record), so no receiver's SPF check passes its mail: the mail service's operator publishes it`,
    };
  }
  for (const ip of addresses.records) {
    const from = `mail from ${mailHost} (${ip})`;
    const domain = await evaluateSpf(dns, { domain: record.host, ip, helo: mailHost });
    if (domain.result === 'pass') continue;
    if (domain.result === 'temperror') {
      return {
        ...record,
        status: 'lookup_failed',
        problem: `SPF could not be evaluated (temperror): ${domain.comment}`,
      };
    }
    const said = `A receiver's SPF check gives ${domain.result} for ${from}`;
    if (record.status === 'ok') {
      // The domain's record names the mail host: is it the mail host's own record that fails?
      const host = await evaluateSpf(dns, { domain: mailHost, ip, helo: mailHost });
      if (host.result !== 'pass') {
        const fix = mailHostSpfRecord(mailHost);
        const why =
          host.result === 'none'
            ? `${mailHost} publishes no SPF record, so include:${mailHost} does not evaluate`
            : `${mailHost}'s own SPF record gives ${host.result} for its address`;
        return {
          ...record,
          status: 'does_not_pass',
          problem: `${said}: ${why}. The mail service's operator publishes ${fix.host} TXT "${fix.value}".`,
          fix,
        };
      }
    }
    return { ...record, status: notPassing, problem: `${said}: ${domain.comment}` };
  }
  return { ...record, status: 'ok', problem: null };
}

/** MAIL_HOST's A and AAAA records: the addresses its mail leaves from. */
async function mailHostAddresses(dns: DnsClient, mailHost: string): Promise<DnsAnswer<string>> {
  const answers = await Promise.all([dns.a(mailHost), dns.aaaa(mailHost)]);
  const found = answers.flatMap((a) => (a.status === 'found' ? a.records : []));
  if (found.length > 0) return { status: 'found', records: found };
  return answers.find((a) => a.status === 'failed') ?? { status: 'none' };
}
