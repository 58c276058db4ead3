import type { Readable } from 'node:stream';
import {
  DRY_RUN_MAX_ERRORS,
  type DryRun,
  type ImportCounts,
  type RowError,
  type UserImportFormat,
  type UserImportJob,
} from '@atrium/contracts/migration';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx, ImportRowOutcome } from '../../db/database.ts';
import { decryptSecret, deriveKey, encryptSecret } from '../../lib/crypto.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { Mailer } from '../../lib/mail.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { issueInviteLinks } from '../invitations/invitations.repository.ts';
import { setPasswordMail } from '../invitations/set-password-mail.ts';
import type { JobContext, JobWorker } from '../jobs/job-worker.ts';
import { cancelJobs, enqueue } from '../jobs/jobs.repository.ts';
import type { Actor } from '../organizations/actor.ts';
import { emailDomainsFor } from '../users/email-domains.ts';
import { actorLabel } from '../users/users.repository.ts';
import { organizationName } from '../users/users.service.ts';
import { readUserCsv, type RawUserRow } from './csv-formats.ts';
import { fitToSeats, seatCheckFor } from './seat-limit.ts';
import {
  addMemberships,
  ensureGroups,
  erasePasswords,
  findImport,
  groupsByKey,
  insertImportRows,
  insertUsers,
  listImports,
  lockImport,
  nextRows,
  recordOutcomes,
  updateNames,
  type StagedRow,
} from './user-import.repository.ts';
import { checkRow, planBatch, type PlanContext, type RowPlan, type ValidRow } from './user-import.rules.ts';

export const USER_IMPORT_JOB = 'migration.user-import';
/** Rows checked together by the dry run (one set of queries per batch). */
const CHECK_BATCH = 1000;
/** Rows written in one transaction by the import; a restart resumes after the last one committed. */
const WRITE_BATCH = 500;
/** One invitation e-mail every 200 ms at most: 5 a second, 18,000 an hour. */
export const INVITE_INTERVAL_MS = 200;
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

const importKey = (config: Config) => deriveKey(config.secret, 'user-import');

async function planContext(deps: MigrationDeps, db: DbOrTrx, organizationId: string): Promise<PlanContext> {
  return {
    organizationId,
    allowed: await emailDomainsFor(db, organizationId, deps.config.allowUnverifiedDomains),
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
      if (plan.action === 'error') addError({ row: raw.row, email: raw.email, message: plan.message });
      else counts[plan.action]++;
    });
  }
  if (!format) throw badRequest('The file is empty.');
  if (total === 0) throw badRequest('The file has a header but no rows.');
  return { format, totalRows: total, counts, errors };
}

/**
 * Starts an import: the file's rows go into the import's table (one transaction with the import,
 * its queued job and the activity entry: a file that turns out bad leaves nothing), then the job
 * queue does the writing. Rows that break a rule of their own are recorded as errors right away.
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
  const created = await deps.db.transaction().execute(async (trx) => {
    const row = await trx
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
    let format: UserImportFormat | undefined;
    let total = 0;
    for await (const batch of checkedBatches(input, CHECK_BATCH, (f) => (format = f))) {
      total += batch.length;
      await insertImportRows(
        trx,
        row.id,
        batch.map(({ raw, check }): StagedRow => {
          const value = check.ok ? check.value : undefined;
          return {
            row_number: raw.row,
            email: raw.email,
            first_name: value?.firstName ?? raw.firstName,
            last_name: value?.lastName ?? raw.lastName,
            groups: value?.groups ?? raw.groups,
            password_enc: value?.password ? encryptSecret(key, value.password) : null,
            invite: raw.invite,
            outcome: check.ok ? null : 'error',
            message: check.ok ? null : check.message,
          };
        }),
      );
    }
    if (!format) throw badRequest('The file is empty.');
    if (total === 0) throw badRequest('The file has a header but no rows.');
    const jobId = await enqueue(trx, {
      kind: USER_IMPORT_JOB,
      payload: { importId: row.id },
      organizationId: actor.organizationId,
      maxAttempts: 10,
    });
    const saved = await trx
      .updateTable('user_imports')
      .set({ format, total_rows: total, job_id: jobId })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label },
      action: 'migration.user_import_started',
      target: { type: 'user_import', id: row.id, label: fileName },
      ip: actor.ip,
      details: { rows: total, format },
    });
    return saved;
  });
  jobs.wake();
  return toJob(created);
}

type ImportRow = NonNullable<Awaited<ReturnType<typeof findImport>>>;

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

/** The job: batch after batch from the last committed one, until the file ends or it is cancelled. */
export function registerUserImportJob(jobs: JobWorker, deps: MigrationDeps, log: FastifyBaseLogger): void {
  jobs.register(
    USER_IMPORT_JOB,
    async (payload, context) => {
      const { importId } = payload as { importId: string };
      try {
        await runImport(deps, importId, context);
      } catch (error) {
        if (context.job.attempts >= context.job.max_attempts) {
          await deps.db
            .updateTable('user_imports')
            .set({ status: 'failed', finished_at: new Date(), error: (error as Error).message.slice(0, 500) })
            .where('id', '=', importId)
            .where('status', 'in', ['queued', 'running'])
            .execute()
            .catch((err: unknown) => log.error({ err }, 'could not mark the import failed'));
        }
        throw error;
      }
    },
    { backoff: { baseMs: 2_000, capMs: 5 * 60_000 }, lockSeconds: 120 },
  );
}

async function runImport(deps: MigrationDeps, importId: string, context: JobContext): Promise<void> {
  const { db } = deps;
  const start = await db.selectFrom('user_imports').selectAll().where('id', '=', importId).executeTakeFirst();
  if (!start || (start.status !== 'queued' && start.status !== 'running')) return;
  const orgId = start.organization_id;
  if (start.status === 'queued') {
    await db.updateTable('user_imports').set({ status: 'running' }).where('id', '=', importId).execute();
  }
  const key = importKey(deps.config);
  const orgName = await organizationName(db, orgId);
  const batchSize = deps.importBatchSize ?? WRITE_BATCH;
  let cursor = start.cursor_row;
  let batchNumber = 0;
  for (;;) {
    const staged = await nextRows(db, importId, cursor, batchSize);
    if (staged.length === 0) break;
    // Slow work (password hashing) and the plan happen before the transaction.
    // Seats are counted from the users there now, earlier batches of this import included.
    const ctx = await planContext(deps, db, orgId);
    const valid = staged.filter((r) => r.outcome === null).map((r) => toValid(r, key));
    const plans = await planBatch(db, ctx, valid);
    const hashes = new Map<string, string>();
    for (const plan of plans) {
      if (plan.action === 'create' && plan.row.password) {
        hashes.set(plan.row.email, await hashPassword(plan.row.password));
      }
    }
    const last = staged.at(-1)!.row_number;
    const stillRunning = await db.transaction().execute(async (trx) => {
      const current = await lockImport(trx, importId);
      // Cancelled, or another worker already committed this batch: stop here.
      if (!current || current.status !== 'running' || current.cursor_row !== cursor) return false;
      const fitted = await fitToSeats(trx, deps.config, orgId, plans);
      const outcomes = await writeBatch(deps, trx, orgId, fitted, hashes, current, orgName);
      const preErrors = staged.filter((r) => r.outcome === 'error').length;
      const count = (o: ImportRowOutcome) => outcomes.filter((x) => x.outcome === o).length;
      await trx
        .updateTable('user_imports')
        .set((eb) => ({
          cursor_row: last,
          rows_done: eb('rows_done', '+', staged.length),
          created_count: eb('created_count', '+', count('created')),
          updated_count: eb('updated_count', '+', count('updated')),
          unchanged_count: eb('unchanged_count', '+', count('unchanged')),
          error_count: eb('error_count', '+', count('error') + preErrors),
          last_invite_at: outcomes.lastInviteAt ?? current.last_invite_at,
        }))
        .where('id', '=', importId)
        .execute();
      return true;
    });
    if (!stillRunning) return;
    cursor = last;
    batchNumber++;
    await context.setProgress({ rowsDone: cursor });
    await deps.afterImportBatch?.(importId, batchNumber);
  }
  await db.transaction().execute(async (trx) => {
    const current = await lockImport(trx, importId);
    if (!current || current.status !== 'running') return;
    const done = await trx
      .updateTable('user_imports')
      .set({ status: 'done', finished_at: new Date() })
      .where('id', '=', importId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordActivity(trx, {
      organizationId: orgId,
      actor: null,
      action: 'migration.user_import_finished',
      target: { type: 'user_import', id: importId, label: done.file_name },
      details: {
        rows: done.total_rows,
        created: done.created_count,
        updated: done.updated_count,
        unchanged: done.unchanged_count,
        errors: done.error_count,
      },
    });
  });
}

function toValid(row: StagedRow, key: Buffer): ValidRow {
  return {
    row: row.row_number,
    email: row.email,
    domain: row.email.slice(row.email.lastIndexOf('@') + 1),
    firstName: row.first_name,
    lastName: row.last_name,
    groups: row.groups,
    password: row.password_enc ? decryptSecret(key, row.password_enc) : '',
    invite: row.invite,
  };
}

/** One batch's writes, each a statement for the whole batch; returns each row's outcome. */
async function writeBatch(
  deps: MigrationDeps,
  trx: DbOrTrx,
  orgId: string,
  plans: RowPlan[],
  hashes: Map<string, string>,
  current: ImportRow,
  orgName: string,
) {
  const creates = plans.filter((p) => p.action === 'create');
  const updates = plans.filter((p) => p.action === 'update');
  const groupNames = new Map<string, string>();
  for (const plan of [...creates, ...updates]) {
    for (const name of plan.row.groups) {
      if (plan.groupKeys.includes(name.toLowerCase())) groupNames.set(name.toLowerCase(), name);
    }
  }
  const groupIds = await ensureGroups(trx, orgId, [...groupNames.values()]);
  const userIds = await insertUsers(
    trx,
    orgId,
    creates.map((p) => ({
      email: p.row.email,
      firstName: p.row.firstName,
      lastName: p.row.lastName,
      passwordHash: hashes.get(p.row.email) ?? null,
    })),
  );
  await updateNames(
    trx,
    orgId,
    updates
      .filter((p) => p.namesChanged)
      .map((p) => ({ id: p.userId, firstName: p.row.firstName, lastName: p.row.lastName })),
  );
  await addMemberships(
    trx,
    orgId,
    [...creates, ...updates].flatMap((p) => {
      const userId = p.action === 'create' ? userIds.get(p.row.email)! : p.userId;
      return p.groupKeys.map((k) => ({ userId, groupId: groupIds.get(k)! }));
    }),
  );

  // Invitations: only to users this import created without a password, spaced out in time.
  const invited = creates.filter((p) => p.row.invite && !p.row.password);
  const links = await issueInviteLinks(
    trx,
    orgId,
    invited.map((p) => userIds.get(p.row.email)!),
  );
  let next = Math.max(Date.now(), current.last_invite_at?.getTime() ?? 0);
  const messages = invited.map((p) => {
    next += INVITE_INTERVAL_MS;
    const link = links.get(userIds.get(p.row.email)!)!;
    return {
      runAt: new Date(next),
      message: setPasswordMail(
        deps.config,
        { purpose: 'invite', ...link },
        { email: p.row.email, firstName: p.row.firstName },
        { organizationName: orgName, adminName: current.started_by_label },
      ),
    };
  });
  await deps.mailer.queueMany(trx, messages);

  const outcomes: Array<{ row: number; outcome: ImportRowOutcome; message: string | null }> & {
    lastInviteAt?: Date;
  } = plans.map((p) => ({
    row: p.row.row,
    outcome:
      p.action === 'create'
        ? 'created'
        : p.action === 'update'
          ? 'updated'
          : p.action === 'unchanged'
            ? 'unchanged'
            : 'error',
    message:
      p.action === 'error'
        ? p.message
        : p.action === 'create' && links.has(userIds.get(p.row.email)!)
          ? 'Invitation e-mail queued'
          : null,
  }));
  await recordOutcomes(trx, current.id, outcomes);
  if (messages.length > 0) outcomes.lastInviteAt = new Date(next);
  return outcomes;
}
