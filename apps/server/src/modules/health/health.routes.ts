import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { routeOptions } from '../../plugins/route-options.ts';

/** A probe that waits longer than this is answered "not ready" (a server that never answers). */
const READY_TIMEOUT_MS = 3_000;

/**
 * Reads a real table, not `select 1`: a database that answers but whose tables cannot be read
 * (a damaged or missing file, a schema gone) serves nobody. Start-up reads every table once
 * (readEveryTable); this probe, asked every few seconds, reads the one every request depends on.
 */
async function readCoreTable(db: Db): Promise<void> {
  await db.selectFrom('organizations').select('id').limit(1).execute();
}

function withDeadline<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

const route = routeOptions({ config: { access: 'public' }, tags: ['health'] });

export const healthRoutes =
  (db: Db): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/health',
      route('getHealth', 'Liveness: the process answers', {
        response: { 200: z.object({ status: z.literal('ok') }) },
      }),
      async () => ({ status: 'ok' as const }),
    );

    app.get(
      '/api/ready',
      route('getReadiness', 'Readiness: the database answers and its tables can be read', {
        response: {
          200: z.object({ status: z.literal('ready') }),
          503: z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
        },
      }),
      async (_request, reply) => {
        try {
          await withDeadline(READY_TIMEOUT_MS, readCoreTable(db));
          return { status: 'ready' as const };
        } catch (error) {
          reply.log.warn({ err: error }, 'not ready: the database does not answer');
          return reply
            .status(503)
            .send({ error: { code: 'database_unavailable', message: 'The database does not answer' } });
        }
      },
    );
  };
