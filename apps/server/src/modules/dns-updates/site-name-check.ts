import { randomBytes } from 'node:crypto';
import { SITE_NAME_IN_DNS, SITE_NAME_RESERVED } from '@atrium/contracts/signup';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { DnsClient } from '../../lib/dns.ts';
import { recordsAt, type FoundRecord } from './dns-update-check.ts';
import { siteRecordName, updateServerDns } from './dns-updates.service.ts';

/**
 * Site names the deployment's own hosts take: the label under SITE_BASE_DOMAIN of the
 * DNS_UPDATE_TARGET host, of PUBLIC_URL's host and of MAIL_HOST (`proxy` for
 * `proxy.sites.example.com`, and for `a.proxy.sites.example.com` too: a site there would sit above
 * the host). A site named so would point the host at itself or take it over.
 */
export function deploymentSiteNames(config: Config): Set<string> {
  const hosts = [config.publicUrl.hostname, config.mailHost];
  const target = config.dnsUpdate?.target;
  if (target && 'cname' in target) hosts.push(target.cname);
  const suffix = `.${config.siteBaseDomain}`;
  const labels = hosts
    .map((host) => host.toLowerCase().replace(/\.$/, ''))
    .filter((host) => host.endsWith(suffix))
    .map((host) => host.slice(0, -suffix.length).split('.').pop()!);
  return new Set(labels);
}

/**
 * Why `siteName` (already valid in form) cannot be a site of this deployment, or null: a name of
 * its own hosts, or, with DNS_UPDATE_SERVER, a name the operator's zone already has (asked of the
 * update server). A wildcard (`*.<SITE_BASE_DOMAIN>`, the README's other way of publishing sites)
 * answers for every name: a name whose answer is only the wildcard's is not in use (see
 * wildcardOnly). A lookup that fails does not refuse the name: sign-up must not stop whenever the
 * DNS server is unreachable, and the site record's update carries the real guarantee (a
 * prerequisite that the name is unused, checked by the server itself, which does not expand
 * wildcards), so at worst the record is not published and the job says why.
 */
export async function siteNameDnsProblem(
  config: Config,
  siteName: string,
  log?: FastifyBaseLogger,
): Promise<string | null> {
  if (deploymentSiteNames(config).has(siteName)) return SITE_NAME_RESERVED;
  const settings = config.dnsUpdate;
  if (!settings) return null;
  const name = siteRecordName(config, siteName);
  const dns = updateServerDns(settings, config.dnsTimeoutMs);
  const answer = await dns.nameExists(name);
  if (answer.status === 'failed') {
    log?.warn(
      { name, error: answer.message },
      'Could not ask the DNS update server whether the site name is in use',
    );
  }
  if (answer.status !== 'exists') return null;
  try {
    return (await wildcardOnly(dns, config.siteBaseDomain, name)) ? null : SITE_NAME_IN_DNS;
  } catch (error) {
    log?.warn(
      { name, error: (error as Error).message },
      'Could not ask the DNS update server whether the site name is only its wildcard',
    );
    return null;
  }
}

/**
 * Whether `name` exists only through a wildcard of the base domain (RFC 4592): then a label that
 * cannot exist *under* it answers too (a name of its own would stop `*.<base>` from answering
 * below it), and `name`, that label and one beside it (a random label with an underscore, never a
 * site name) all hold the same records among CNAME, A, AAAA, TXT and MX. So a name of the
 * operator's (`intranet A 10.0.0.5`), a parent of other names (which holds nothing itself), or a
 * name with a wildcard of its own below it stays in use. A lookup that fails throws.
 */
async function wildcardOnly(dns: DnsClient, baseDomain: string, name: string): Promise<boolean> {
  const label = () => `_atrium-probe-${randomBytes(10).toString('hex')}`;
  const below = `${label()}.${name}`;
  const answer = await dns.nameExists(below);
  if (answer.status === 'failed') throw new Error(`checking ${below}: ${answer.message}`);
  if (answer.status === 'none') return false;
  const [held, underneath, beside] = await Promise.all(
    [name, below, `${label()}.${baseDomain}`].map((n) => recordsAt(dns, n)),
  );
  return held!.length > 0 && sameRecords(held!, underneath!) && sameRecords(held!, beside!);
}

function sameRecords(a: FoundRecord[], b: FoundRecord[]): boolean {
  const keys = (records: FoundRecord[]) =>
    records
      .map((r) => `${r.type} ${r.type === 'TXT' ? r.value : r.value.toLowerCase().replace(/\.$/, '')}`)
      .sort();
  const [left, right] = [keys(a), keys(b)];
  return left.length === right.length && left.every((key, i) => key === right[i]);
}
