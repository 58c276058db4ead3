import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { operatorStatusSchema } from '@atrium/contracts/operator';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { sha256 } from '../../lib/crypto.ts';
import { createDnsClient, type DnsClient } from '../../lib/dns.ts';
import { AppError } from '../../lib/errors.ts';
import { runChecks } from '../../operator/doctor/check.ts';
import { serverChecks } from '../../operator/doctor/server-checks.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const errorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/**
 * Public as far as sessions go (a monitor has none); the bearer token is the access check. A
 * monitor asks once a minute or so: 30 a minute per address is plenty, and keeps anyone guessing
 * tokens (or making the server look up every domain's DNS) slow.
 */
const route = routeOptions({
  config: { access: 'public', rateLimit: { max: 30, timeWindow: '1 minute' } },
  tags: ['operator'],
});

/**
 * The doctor's server-side checks for monitoring systems, behind OPERATOR_TOKEN from the settings
 * file. Without the setting the endpoint does not exist (404), so a deployment that never set a
 * token shows nothing; a missing or wrong token is 401. Read-only: it changes nothing and its
 * answer names hosts, counts and records, never a secret.
 */
export const operatorStatusRoutes =
  (deps: { db: Db; config: Config; dns?: DnsClient }): FastifyPluginAsyncZod =>
  async (app) => {
    const dns = deps.dns ?? createDnsClient(deps.config);
    const token = deps.config.operatorToken;
    app.get(
      '/api/operator/status',
      route('getOperatorStatus', "The doctor's checks the server can run; 200 when all pass, 503 otherwise", {
        headers: z.object({ authorization: z.string().optional() }),
        response: {
          200: operatorStatusSchema,
          503: operatorStatusSchema,
          401: errorSchema,
          404: errorSchema,
        },
      }),
      async (request, reply) => {
        // Exactly what an unknown route answers (console-static.ts): nothing to find without a token.
        if (!token) {
          return reply
            .status(404)
            .send({ error: { code: 'not_found', message: `No route GET ${request.url.split('?')[0]}` } });
        }
        if (!hasToken(request, token)) {
          void reply.header('www-authenticate', 'Bearer realm="atrium-operator"');
          throw new AppError(
            401,
            'unauthenticated',
            'Send the OPERATOR_TOKEN of the settings file as a Bearer token',
          );
        }
        const outcomes = await runChecks(await serverChecks({ db: deps.db, config: deps.config, dns }));
        const ok = outcomes.every((o) => o.ok);
        return reply.status(ok ? 200 : 503).send({
          ok,
          checkedAt: new Date().toISOString(),
          checks: outcomes.map((o) => ({ name: o.name, ok: o.ok, detail: o.detail, fix: o.fix ?? null })),
        });
      },
    );
  };

/** Compares digests, so the comparison takes the same time whatever the sent token's length. */
export function hasToken(request: FastifyRequest, expected: string): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) return false;
  return timingSafeEqual(Buffer.from(sha256(match[1]!)), Buffer.from(sha256(expected)));
}
