import { SITE_NAME_IN_DNS, SITE_NAME_RESERVED } from '@atrium/contracts/signup';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
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
 * update server). A lookup that fails does not refuse the name: sign-up must not stop whenever the
 * DNS server is unreachable, and the site record's update carries the real guarantee (a
 * prerequisite that the name is unused, checked by the server itself), so at worst the record is
 * not published and the job says why.
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
  const answer = await updateServerDns(settings, config.dnsTimeoutMs).nameExists(name);
  if (answer.status === 'exists') return SITE_NAME_IN_DNS;
  if (answer.status === 'failed') {
    log?.warn(
      { name, error: answer.message },
      'Could not ask the DNS update server whether the site name is in use',
    );
  }
  return null;
}
