import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { operatorStatusSchema } from '@atrium/contracts/operator';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { createDnsClient, type DnsClient } from '../../lib/dns.ts';
import { runChecks } from '../../operator/doctor/check.ts';
import { serverChecks } from '../../operator/doctor/server-checks.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import { refuseWithoutOperatorToken } from './operator-token.ts';

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
      route(
        'getOperatorStatus',
        "The doctor's checks the server can run; 200 when all pass (a warning passes), 503 otherwise",
        {
          headers: z.object({ authorization: z.string().optional() }),
          response: {
            200: operatorStatusSchema,
            503: operatorStatusSchema,
            401: errorSchema,
            404: errorSchema,
          },
        },
      ),
      async (request, reply) => {
        const refused = refuseWithoutOperatorToken(request, reply, token);
        if (refused) return refused;
        const outcomes = await runChecks(await serverChecks({ db: deps.db, config: deps.config, dns }));
        const ok = outcomes.every((o) => o.ok);
        return reply.status(ok ? 200 : 503).send({
          ok,
          checkedAt: new Date().toISOString(),
          checks: outcomes.map((o) => ({
            name: o.name,
            ok: o.ok,
            warning: o.warning ?? false,
            detail: o.detail,
            fix: o.fix ?? null,
          })),
        });
      },
    );
  };
