import { Readable } from 'node:stream';
import {
  dryRunSchema,
  IMPORT_MAX_BYTES,
  migrationJobsSchema,
  userImportJobSchema,
  userImportParamsSchema,
  userImportQuerySchema,
} from '@atrium/contracts/migration';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../lib/errors.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { actorOf } from '../organizations/actor.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { csvRow } from '../users/users-export.ts';
import { FILE_TOO_LARGE } from './csv-formats.ts';
import { resultRows } from './user-import.repository.ts';
import {
  cancelImport,
  dryRun,
  getUserImport,
  listUserImports,
  startImport,
  toJob,
  type MigrationDeps,
} from './user-import.service.ts';
import { registerUserImportJob } from './user-import.job.ts';
import { mailMigrationRoutes } from './mail-migration.routes.ts';
import { listMailJobs, type MailMigrationDeps } from './mail-migration.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const ADMIN = { access: 'admin' as const };
const TAGS = ['migration'];
const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain', 'application/vnd.ms-excel'];

const route = routeOptions({ config: ADMIN, tags: TAGS });

/** A slice of the body the CSV parser takes at once: a large chunk is parsed in several turns. */
const SLICE = 64 * 1024;

/** The mailbox list of a mail migration (at most 1,000 rows) is read whole, up to this. */
const MAIL_CSV_MAX_BYTES = 20 * 1024 * 1024;

/**
 * The uploaded file: the body is sent raw as `text/csv` (no multipart: one file, nothing else).
 * It is handed on as it arrives (the import checks and stages its rows batch by batch, with no
 * transaction open while it reads: on the embedded database one connection serves every request),
 * in slices of at most 64 KB so no one parse holds the event loop. The limit is counted on the
 * bytes that arrive, so a chunked body without Content-Length is held to it too: past it, the
 * reader fails with a 413.
 */
function csvBody(
  request: FastifyRequest,
  maxBytes = IMPORT_MAX_BYTES,
  tooLargeMessage = FILE_TOO_LARGE,
): Readable {
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!CSV_TYPES.includes(type)) {
    throw new AppError(
      415,
      'unsupported_media_type',
      'Send the file as the request body with Content-Type text/csv',
    );
  }
  const tooLarge = () => new AppError(413, 'file_too_large', tooLargeMessage);
  if (Number(request.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  async function* slices() {
    let size = 0;
    try {
      // Not destroyed when the reader stops early: the client still gets its 400 or 413.
      for await (const chunk of request.raw.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) throw tooLarge();
        for (let at = 0; at < chunk.length; at += SLICE) yield chunk.subarray(at, at + SLICE);
      }
    } finally {
      // Stopped early (a bad row, too large): the rest of the upload is drained, not read.
      if (!request.raw.readableEnded) request.raw.resume();
    }
  }
  return Readable.from(slices(), { objectMode: false });
}

/** Data Migration (README, "Data Migration"): users from a CSV file. Admins only; other orgs' imports are 404. */
export const migrationRoutes =
  (
    deps: MigrationDeps & Pick<MailMigrationDeps, 'afterMailProgress'> & { jobs: JobWorker },
  ): FastifyPluginAsyncZod =>
  async (app) => {
    registerUserImportJob(deps.jobs, deps, app.log.child({ module: 'migration' }));
    // The body stays a stream for the handler (request.raw), which reads it within its limit.
    app.addContentTypeParser(CSV_TYPES, (_request, _payload, done) => done(null, undefined));
    await app.register(
      mailMigrationRoutes(deps, async (request) => {
        const chunks: Buffer[] = [];
        const tooLarge = `The file is larger than ${MAIL_CSV_MAX_BYTES / 1024 / 1024} MB. Split it into several files.`;
        for await (const chunk of csvBody(request, MAIL_CSV_MAX_BYTES, tooLarge))
          chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString('utf8');
      }),
    );

    app.get(
      '/api/migration/jobs',
      route(
        'listMigrationJobs',
        'The latest migration jobs of every kind, running and finished, newest first',
        { response: { 200: migrationJobsSchema } },
      ),
      async (request) => {
        const { organizationId } = principalOf(request);
        const [imports, mail] = await Promise.all([
          listUserImports(deps.db, organizationId),
          listMailJobs(deps.db, organizationId),
        ]);
        return { jobs: [...imports, ...mail].sort((a, b) => b.createdAt.localeCompare(a.createdAt)) };
      },
    );

    app.post(
      '/api/migration/user-imports/dry-run',
      route(
        'dryRunUserImport',
        'Check a user file (raw text/csv body) without writing anything: counts and each error',
        { consumes: ['text/csv'], response: { 200: dryRunSchema } },
        // It writes nothing, so a cancelled subscription (read and export only) allows it.
        { ...ADMIN, allowedWhileCancelled: true },
      ),
      async (request) => dryRun(deps, actorOf(request), csvBody(request)),
    );

    app.post(
      '/api/migration/user-imports',
      route('startUserImport', 'Import a user file (raw text/csv body) as a background job', {
        consumes: ['text/csv'],
        querystring: userImportQuerySchema,
        response: { 202: userImportJobSchema },
      }),
      async (request, reply) =>
        reply
          .status(202)
          .send(
            await startImport(deps, deps.jobs, actorOf(request), csvBody(request), request.query.fileName),
          ),
    );

    app.get(
      '/api/migration/user-imports/:id',
      route('getUserImport', 'One import with its progress', {
        params: userImportParamsSchema,
        response: { 200: userImportJobSchema },
      }),
      async (request) =>
        toJob(await getUserImport(deps.db, principalOf(request).organizationId, request.params.id)),
    );

    app.post(
      '/api/migration/user-imports/:id/cancel',
      route('cancelUserImport', 'Stop an import after the batch in progress; what was written stays', {
        params: userImportParamsSchema,
        response: { 200: userImportJobSchema },
      }),
      async (request) => cancelImport(deps, actorOf(request), request.params.id),
    );

    app.get(
      '/api/migration/user-imports/:id/result.csv',
      route(
        'downloadUserImportResult',
        'Every row of the file with what the import did with it (CSV, streamed)',
        { params: userImportParamsSchema, produces: ['text/csv'] },
      ),
      async (request, reply) => {
        const job = await getUserImport(deps.db, principalOf(request).organizationId, request.params.id);
        const finished = job.status !== 'queued' && job.status !== 'running';
        async function* rows() {
          yield '\uFEFF' + csvRow(['Row', 'E-mail', 'First name', 'Last name', 'Status', 'Message']);
          let after = 0;
          for (;;) {
            const page = await resultRows(deps.db, job.id, after, 2000);
            if (page.length === 0) return;
            let chunk = '';
            for (const r of page) {
              const status = r.outcome ?? (finished ? 'not imported' : 'pending');
              chunk += csvRow([
                String(r.row_number),
                r.email,
                r.first_name,
                r.last_name,
                status,
                r.message ?? '',
              ]);
            }
            yield chunk;
            after = page.at(-1)!.row_number;
          }
        }
        const base = job.file_name.replace(/\.csv$/i, '').replace(/[^\w.-]+/g, '_') || 'import';
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${base}-result.csv"`)
          .header('cache-control', 'no-store')
          .send(Readable.from(rows()));
      },
    );
  };
