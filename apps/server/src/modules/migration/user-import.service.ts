import type { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { replaceUnstorable } from '@atrium/contracts/text';
import {
  DRY_RUN_MAX_ERRORS,
  type DryRun,
  type ImportCounts,
  type RowError,
  type UserImportFormat,
  type UserImportJob,
} from '@atrium/contracts/migration';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { deriveKey, encryptSecret } from '../../lib/crypto.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { Mailer } from '../../lib/mail.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { cancelJobs, enqueue } from '../jobs/jobs.repository.ts';
import type { Actor } from '../organizations/actor.ts';
import { emailDomainsFor } from '../users/email-domains.ts';
import { mailHostedHere } from '../invitations/invitation-address.ts';
import { actorLabel } from '../users/users.repository.ts';
import { readUserCsv, type RawUserRow } from './csv-formats.ts';
import { seatCheckFor } from './seat-limit.ts';
import {
  countErrorsNotReached,
  deleteUpload,
  erasePasswords,
  findImport,
  groupsByKey,
  insertImportRows,
  listImports,
  lockImport,
  type StagedRow,
} from './user-import.repository.ts';
import { checkRow, planBatch, type PlanContext, type ValidRow } from './user-import.rules.ts';

export const USER_IMPORT_JOB = 'migration.user-import';
/** Rows checked together by the dry run (one set of queries per batch). */
const CHECK_BATCH = 1000;
/** The page lists the latest imports. */
const LIST_LIMIT = 50;

export interface MigrationDeps {
  db: Db;
  config: Config;
  mailer: Mailer;
  /** Tests: rows per write batch, and a hook after each committed batch (to stop a worker there). */
  importBatchSize?: number;
  afterImportBatch?: (importId: string, batch: number) => Promise<void>;
}

export const importKey = (config: Config) => deriveKey(config.secret, 'user-import');

export async function planContext(
  deps: MigrationDeps,
  db: DbOrTrx,
  organizationId: string,
): Promise<PlanContext> {
  return {
    organizationId,
    allowed: await emailDomainsFor(
      db,
      organizationId,
      deps.config.allowUnverifiedDomains,
      mailHostedHere(deps.config),
    ),
    elsewhere: new Map(),
    groups: await groupsByKey(db, organizationId),
    seats: await seatCheckFor(db, deps.config, organizationId),
    creates: 0,
  };
}

/** Reads the file's rows, running the rules of each row alone; yields batches of checked rows. */
async function* checkedBatches(
  input: Readable,
  size: number,
  onFormat: (format: UserImportFormat) => void,
): AsyncGenerator<Array<{ raw: RawUserRow; check: ReturnType<typeof checkRow> }>> {
  const seen = new Map<string, number>();
  let batch: Array<{ raw: RawUserRow; check: ReturnType<typeof checkRow> }> = [];
  for await (const item of readUserCsv(input)) {
    if (!('row' in item)) {
      onFormat(item.format);
      continue;
    }
    batch.push({ raw: item, check: checkRow(item, seen) });
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * The dry run: every row checked as the import would, counts and each error with its row.
 * Reads and writes nothing but the file.
 */
export async function dryRun(deps: MigrationDeps, actor: Actor, input: Readable): Promise<DryRun> {
  const ctx = await planContext(deps, deps.db, actor.organizationId);
  const counts: ImportCounts = { create: 0, update: 0, unchanged: 0, errors: 0 };
  const errors: RowError[] = [];
  let format: UserImportFormat | undefined;
  let total = 0;
  const addError = (error: RowError) => {
    counts.errors++;
    if (errors.length < DRY_RUN_MAX_ERRORS) errors.push(error);
  };
  // Rows beyond the free seats all share one reason: counted, said once, not listed row by row.
  let overSeats = 0;
  for await (const batch of checkedBatches(input, CHECK_BATCH, (f) => (format = f))) {
    total += batch.length;
    const valid: ValidRow[] = [];
    const pending: Array<RowError | null> = [];
    for (const { check } of batch) {
      if (check.ok) {
        valid.push(check.value);
        pending.push(null);
      } else pending.push({ row: check.row, email: check.email, message: check.message });
    }
    const plans = new Map((await planBatch(deps.db, ctx, valid)).map((p) => [p.row.row, p]));
    // In file order, so the errors list reads top to bottom.
    batch.forEach(({ raw }, i) => {
      const error = pending[i];
      if (error) return addError(error);
      const plan = plans.get(raw.row)!;
      if (plan.action === 'error' && plan.overSeats) {
        counts.errors++;
        overSeats++;
      } else if (plan.action === 'error') addError({ row: raw.row, email: raw.email, message: plan.message });
      else counts[plan.action]++;
    });
  }
  if (!format) throw badRequest('The file is empty.');
  if (total === 0) throw badRequest('The file has a header but no rows.');
  return { format, totalRows: total, counts, errors, seats: seatShortfall(ctx.seats, overSeats) };
}

/** "You need 480 more seats…", once for every row beyond the free seats; null when they fit. */
function seatShortfall(seats: PlanContext['seats'], more: number): DryRun['seats'] {
  if (more === 0) return null;
  const s = (n: number) => `${n.toLocaleString('en')} seat${n === 1 ? '' : 's'}`;
  const adding = seats.free + more;
  return {
    moreNeeded: more,
    message:
      `You need ${more.toLocaleString('en')} more ${more === 1 ? 'seat' : 'seats'} to import every row: the file adds ${adding.toLocaleString('en')} ` +
      `${adding === 1 ? 'user' : 'users'} and ${seats.free.toLocaleString('en')} of the ${s(seats.seats)} ` +
      `of your ${seats.planTitle} plan are free. Add seats on the Subscriptions page, or the import ` +
      `skips the last ${more.toLocaleString('en')} new ${more === 1 ? 'user' : 'users'}.`,
  };
}

/**
 * Starts an import. The import's row is made first, unlisted (it has no job yet); the file's rows
 * go into the import's table as the file arrives, each checked batch one statement, so neither a
 * slow upload nor a large file holds the database: on the embedded database one connection serves
 * every request, and the one transaction this was (parse, check and insert of every row) kept
 * `/api/ready` and every other request waiting for the whole upload (issue 30 item 7). A file that
 * turns out bad takes its import and rows away again. Once the file has been read whole, one short
 * transaction queues the job, fills in the import and logs the activity: from then on it is listed.
 * Rows that break a rule of their own are recorded as errors right away.
 */
export async function startImport(
  deps: MigrationDeps,
  jobs: JobWorker,
  actor: Actor,
  input: Readable,
  fileName: string,
): Promise<UserImportJob> {
  const key = importKey(deps.config);
  const label = await actorLabel(deps.db, actor.organizationId, actor.userId);
  const { id } = await deps.db
    .insertInto('user_imports')
    .values({
      organization_id: actor.organizationId,
      file_name: fileName,
      format: 'atrium',
      total_rows: 0,
      started_by: actor.userId,
      started_by_label: label,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  try {
    let format: UserImportFormat | undefined;
    let total = 0;
    for await (const batch of checkedBatches(input, CHECK_BATCH, (f) => (format = f))) {
      total += batch.length;
      await insertImportRows(
        deps.db,
        id,
        batch.map(({ raw, check }): StagedRow => {
          const value = check.ok ? check.value : undefined;
          // A refused row keeps what the file said for the result file, minus what cannot be stored.
          return {
            row_number: raw.row,
            email: replaceUnstorable(raw.email),
            first_name: value?.firstName ?? replaceUnstorable(raw.firstName),
            last_name: value?.lastName ?? replaceUnstorable(raw.lastName),
            groups: value?.groups ?? raw.groups.map(replaceUnstorable),
            password_enc: value?.password ? encryptSecret(key, value.password) : null,
            invite: raw.invite,
            personal_email: value?.personalEmail ?? null,
            outcome: check.ok ? null : 'error',
            message: check.ok ? null : check.message,
          };
        }),
      );
      // Other requests' statements go in between two batches.
      await setImmediate();
    }
    if (!format) throw badRequest('The file is empty.');
    if (total === 0) throw badRequest('The file has a header but no rows.');
    const created = await deps.db.transaction().execute(async (trx) => {
      const jobId = await enqueue(trx, {
        kind: USER_IMPORT_JOB,
        payload: { importId: id },
        organizationId: actor.organizationId,
        maxAttempts: 10,
      });
      const saved = await trx
        .updateTable('user_imports')
        .set({ format, total_rows: total, job_id: jobId })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordActivity(trx, {
        organizationId: actor.organizationId,
        actor: { userId: actor.userId, label },
        action: 'migration.user_import_started',
        target: { type: 'user_import', id, label: fileName },
        ip: actor.ip,
        details: { rows: total, format },
      });
      return saved;
    });
    jobs.wake();
    return toJob(created);
  } catch (error) {
    // Its rows go with it (on delete cascade). A process that dies meanwhile leaves it to
    // the housekeeping (deleteAbandonedUploads).
    await deleteUpload(deps.db, id).catch(() => undefined);
    throw error;
  }
}

export type ImportRow = NonNullable<Awaited<ReturnType<typeof findImport>>>;

export function toJob(row: ImportRow): UserImportJob {
  return {
    kind: 'user-import',
    id: row.id,
    fileName: row.file_name,
    format: row.format as UserImportFormat,
    status: row.status,
    totalRows: row.total_rows,
    rowsDone: row.rows_done,
    counts: {
      create: row.created_count,
      update: row.updated_count,
      unchanged: row.unchanged_count,
      errors: row.error_count,
    },
    startedBy: row.started_by_label,
    createdAt: row.created_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    error: row.error,
  };
}

export async function listUserImports(db: Db, organizationId: string): Promise<UserImportJob[]> {
  return (await listImports(db, organizationId, LIST_LIMIT)).map(toJob);
}

export async function getUserImport(db: Db, organizationId: string, id: string): Promise<ImportRow> {
  const row = await findImport(db, organizationId, id);
  if (!row) throw notFound('The import');
  return row;
}

/**
 * Stops an import between two batches: what was written stays, the remaining rows are not
 * imported and their passwords are erased.
 */
export async function cancelImport(deps: MigrationDeps, actor: Actor, id: string): Promise<UserImportJob> {
  const label = await actorLabel(deps.db, actor.organizationId, actor.userId);
  return deps.db.transaction().execute(async (trx) => {
    const row = await findImport(trx, actor.organizationId, id);
    if (!row) throw notFound('The import');
    const locked = (await lockImport(trx, id))!;
    if (locked.status !== 'queued' && locked.status !== 'running') {
      throw conflict('This import has already finished', undefined, 'already_finished');
    }
    await countErrorsNotReached(trx, id);
    const saved = await trx
      .updateTable('user_imports')
      .set({ status: 'cancelled', finished_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await erasePasswords(trx, id);
    if (locked.job_id) await cancelJobs(trx, [locked.job_id]);
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label },
      action: 'migration.user_import_cancelled',
      target: { type: 'user_import', id, label: row.file_name },
      ip: actor.ip,
      details: { rowsDone: locked.rows_done, rows: locked.total_rows },
    });
    return toJob(saved);
  });
}
