import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../lib/errors.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import { canonicalHost } from '../domains/domain-name.ts';
import { isVerifiedDomain } from '../domains/proxy-hosts.repository.ts';
import { mtaStsMode } from './mail-certificate-seen.ts';
import { MTA_STS_LABEL, MTA_STS_PATH, mtaStsPolicy } from './mta-sts-policy.ts';

const route = routeOptions({
  // Sending servers fetch it once per max_age per domain; 60 a minute per address is plenty.
  config: { access: 'public', rateLimit: { max: 60, timeWindow: '1 minute' } },
  tags: ['mail'],
});

/** `mta-sts.<domain>` → the domain; undefined for any other host name. */
export function mtaStsDomainOf(hostname: string): string | undefined {
  const host = canonicalHost(hostname.replace(/:\d+$/, ''));
  const prefix = `${MTA_STS_LABEL}.`;
  if (!host?.startsWith(prefix)) return undefined;
  const domain = host.slice(prefix.length);
  return domain.includes('.') ? domain : undefined;
}

/**
 * The MTA-STS policy (RFC 8461 §3.3) at https://mta-sts.<domain>/.well-known/mta-sts.txt, where
 * the DNS mapping points `mta-sts.<domain>` at MAIL_HOST and Caddy obtains its certificate after
 * asking /api/proxy-hosts/check. Only for a verified domain (404 for any other name, so the host
 * tells nobody which domains it knows but has not verified); the same policy for all of them.
 */
export const mtaStsRoutes =
  (deps: { db: Db; config: Pick<Config, 'dataDir' | 'mailHost'> }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      MTA_STS_PATH,
      route('mtaStsPolicy', 'MTA-STS policy of a verified domain, asked at mta-sts.<domain> (RFC 8461)', {
        response: { 200: z.string().describe('version, mode, mx and max_age lines, CRLF-terminated') },
        produces: ['text/plain'],
      }),
      async (request, reply) => {
        const domain = mtaStsDomainOf(request.hostname);
        if (!domain || !(await isVerifiedDomain(deps.db, [domain]))) throw notFound('MTA-STS policy');
        const policy = mtaStsPolicy(deps.config.mailHost, await mtaStsMode(deps.config));
        // Senders cache by max_age and the _mta-sts id, not by HTTP caching (RFC 8461 §3.3).
        return reply.header('cache-control', 'no-cache').type('text/plain').send(policy.text);
      },
    );
  };
