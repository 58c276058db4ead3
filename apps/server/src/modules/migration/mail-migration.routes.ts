import {
  mailMigrationDetailSchema,
  mailMigrationJobSchema,
  mailMigrationParamsSchema,
  mailMigrationsStartedSchema,
  rerunMailMigrationSchema,
  startMailMigrationSchema,
} from '@atrium/contracts/mail-migration';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { JobWorker } from '../jobs/job-worker.ts';
import { actorOf } from '../organizations/actor.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { readMailMigrationCsv } from './mail-migration-csv.ts';
import { registerMailMigrationJob } from './mail-migration.job.ts';
import {
  cancelMailMigration,
  getMailMigration,
  rerunMailMigration,
  startMailMigrations,
  type MailMigrationDeps,
} from './mail-migration.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const ADMIN = { access: 'admin' as const };
const TAGS = ['migration'];

const route = routeOptions({ config: ADMIN, tags: TAGS });

/**
 * Data Migration (docs/mail.md, "Mail migration"): mail from the old provider over IMAP, one job per mailbox.
 * Registered inside migrationRoutes, whose CSV body parser it shares (`csvText`).
 */
export const mailMigrationRoutes =
  (
    deps: MailMigrationDeps & { jobs: JobWorker },
    csvText: (request: FastifyRequest) => Promise<string>,
  ): FastifyPluginAsyncZod =>
  async (app) => {
    registerMailMigrationJob(deps.jobs, deps, app.log.child({ module: 'mail-migration' }));

    app.post(
      '/api/migration/mail-migrations',
      route(
        'startMailMigration',
        'Copy one mailbox from the old provider’s IMAP server, as a background job',
        { body: startMailMigrationSchema, response: { 202: mailMigrationJobSchema } },
      ),
      async (request, reply) => {
        const [job] = await startMailMigrations(deps, deps.jobs, actorOf(request), [request.body]);
        return reply.status(202).send(job!);
      },
    );

    app.post(
      '/api/migration/mail-migrations/csv',
      route(
        'startMailMigrationsFromCsv',
        'Copy many mailboxes: a raw text/csv body, one row per mailbox; one job each',
        { consumes: ['text/csv'], response: { 202: mailMigrationsStartedSchema } },
      ),
      async (request, reply) => {
        const rows = readMailMigrationCsv(await csvText(request));
        const jobs = await startMailMigrations(
          deps,
          deps.jobs,
          actorOf(request),
          rows,
          (i) => `Row ${i + 2}: `,
        );
        return reply.status(202).send({ jobs });
      },
    );

    app.get(
      '/api/migration/mail-migrations/:id',
      route('getMailMigration', 'One mailbox migration with its progress and its folders', {
        params: mailMigrationParamsSchema,
        response: { 200: mailMigrationDetailSchema },
      }),
      async (request) => getMailMigration(deps.db, principalOf(request).organizationId, request.params.id),
    );

    app.post(
      '/api/migration/mail-migrations/:id/cancel',
      route('cancelMailMigration', 'Stop a mailbox migration; what was copied stays', {
        params: mailMigrationParamsSchema,
        response: { 200: mailMigrationJobSchema },
      }),
      async (request) => cancelMailMigration(deps, actorOf(request), request.params.id),
    );

    app.post(
      '/api/migration/mail-migrations/:id/rerun',
      route('rerunMailMigration', 'Copy what is new since the last run (the password is asked again)', {
        params: mailMigrationParamsSchema,
        body: rerunMailMigrationSchema,
        response: { 202: mailMigrationJobSchema },
      }),
      async (request, reply) =>
        reply
          .status(202)
          .send(
            await rerunMailMigration(
              deps,
              deps.jobs,
              actorOf(request),
              request.params.id,
              request.body.password,
            ),
          ),
    );
  };
