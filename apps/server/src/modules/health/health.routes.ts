import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Db } from '../../db/database.ts';

export const healthRoutes =
  (db: Db): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/health',
      {
        config: { access: 'public' },
        schema: {
          operationId: 'getHealth',
          tags: ['health'],
          summary: 'Liveness: the process answers',
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );

    app.get(
      '/api/ready',
      {
        config: { access: 'public' },
        schema: {
          operationId: 'getReadiness',
          tags: ['health'],
          summary: 'Readiness: the database answers',
          response: {
            200: z.object({ status: z.literal('ready') }),
            503: z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
          },
        },
      },
      async (_request, reply) => {
        try {
          await sql`select 1`.execute(db);
          return { status: 'ready' as const };
        } catch {
          return reply
            .status(503)
            .send({ error: { code: 'database_unavailable', message: 'The database does not answer' } });
        }
      },
    );
  };
