import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { dumpDatabase, formatDump } from '../../db/logical-dump.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import { refuseUnlessBackupCaller } from './backup-access.ts';

const errorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/**
 * A backup and a verify each take one dump; an operator retrying after a fault takes a few more.
 * The limit bounds the work a caller can cause (BACKUP_TOKEN is far too long to guess).
 */
const route = routeOptions({
  config: { access: 'public', rateLimit: { max: 30, timeWindow: '1 minute' } },
  tags: ['operator'],
});

/**
 * The database as `npm run atrium -- backup` stores it (logical-dump.ts). The dump comes from the
 * server because the server holds the embedded database exclusively while it runs: only through
 * its connection can a dump be taken without stopping it, and the same way serves PostgreSQL (one
 * snapshot transaction, no pg_dump of another version needed). It holds every secret of every
 * organisation, so only the backup on this host gets it: straight over loopback, with BACKUP_TOKEN,
 * never the monitors' OPERATOR_TOKEN (backup-access.ts).
 */
export const databaseDumpRoutes =
  (deps: { db: Db; config: Config }): FastifyPluginAsyncZod =>
  async (app) => {
    const token = deps.config.backupToken;
    app.get(
      '/api/operator/database-dump',
      route('getDatabaseDump', 'Every table of the database read in one transaction, for a backup', {
        headers: z.object({ authorization: z.string().optional() }),
        // 200: NDJSON text (logical-dump.ts formatDump), sent as a Buffer past the JSON serialiser.
        response: { 200: z.unknown(), 401: errorSchema, 403: errorSchema, 404: errorSchema },
      }),
      async (request, reply) => {
        const refused = refuseUnlessBackupCaller(request, reply, token);
        if (refused) return refused;
        const dump = await dumpDatabase(deps.db);
        // A Buffer is sent as it is (no JSON serialiser in the way).
        return reply
          .header('cache-control', 'no-store')
          .type('application/x-ndjson')
          .send(Buffer.from(formatDump(dump)));
      },
    );
  };
