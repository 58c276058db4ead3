import { DOMAIN_SITE_LABEL, proxyHostQuerySchema, proxyHostResponseSchema } from '@atrium/contracts/domains';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { fieldError, notFound } from '../../lib/errors.ts';
import { canonicalHost } from './domain-name.ts';
import { AUTOCONFIG_LABEL, AUTODISCOVER_LABEL } from '../devices/discovery.service.ts';
import { isSiteNameTaken } from '../signup/signup.repository.ts';
import { isVerifiedDomain } from './proxy-hosts.repository.ts';
import { MTA_STS_LABEL } from '../mta-sts/mta-sts-policy.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const route = routeOptions({
  config: { access: 'public', rateLimit: { max: 60, timeWindow: '1 minute' } },
  tags: ['domains'],
});

/**
 * Asked by a reverse proxy (Caddy's `on_demand_tls { ask … }`) before it obtains a certificate
 * for a host it has never seen: 200 only for hosts Atrium serves, so nobody can make it request
 * certificates for arbitrary names. See docs/caddy.md.
 */
export const proxyHostsRoutes =
  (deps: { db: Db; config: Pick<Config, 'siteBaseDomain' | 'mailHost'> }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/proxy-hosts/check',
      route(
        'checkProxyHost',
        'Proxy host check: 200 for a verified domain, its apps/autoconfig/autodiscover/mta-sts names, an organisation site or MAIL_HOST; 404 otherwise',
        { querystring: proxyHostQuerySchema, response: { 200: proxyHostResponseSchema } },
      ),
      async (request) => {
        const host = canonicalHost(request.query.domain);
        if (!host) throw fieldError('domain', 'Give a host name such as apps.example.com');
        if (await isServed(deps, host)) return { host };
        throw notFound('Host');
      },
    );
  };

async function isServed(
  deps: { db: Db; config: Pick<Config, 'siteBaseDomain' | 'mailHost'> },
  host: string,
): Promise<boolean> {
  // MAIL_HOST: where devices reach the calendar and contacts server (devices/device-endpoints.ts).
  if (host === deps.config.mailHost) return true;
  const base = `.${deps.config.siteBaseDomain}`;
  if (host.endsWith(base)) {
    const site = host.slice(0, -base.length);
    return !site.includes('.') && (await isSiteNameTaken(deps.db, site));
  }
  // The verified domain itself, a name the DNS mapping points at the organisation's site, or
  // mta-sts.<domain>, which it points at MAIL_HOST to serve the MTA-STS policy.
  const label = [DOMAIN_SITE_LABEL, AUTOCONFIG_LABEL, AUTODISCOVER_LABEL, MTA_STS_LABEL].find((l) =>
    host.startsWith(`${l}.`),
  );
  const names = label ? [host, host.slice(label.length + 1)] : [host];
  return isVerifiedDomain(deps.db, names);
}
