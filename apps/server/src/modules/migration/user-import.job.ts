import type { KeyObject } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { DbOrTrx } from '../../db/database.ts';
import type { ImportRowOutcome } from '../../db/user-import-tables.ts';
import { decryptSecret } from '../../lib/crypto.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { issueInviteLinks } from '../invitations/invitations.repository.ts';
import { setPasswordMail } from '../invitations/set-password-mail.ts';
import type { JobContext, JobWorker } from '../jobs/job-worker.ts';
import { organizationName } from '../users/users.service.ts';
import { fitToSeats, tellIfLastSeatTaken } from './seat-limit.ts';
import {
  addMemberships,
  countErrorsNotReached,
  deleteAbandonedUploads,
  ensureGroups,
  insertUsers,
  lockImport,
  nextRows,
  recordOutcomes,
  updateNames,
  type StagedRow,
} from './user-import.repository.ts';
import { planBatch, type RowPlan, type ValidRow } from './user-import.rules.ts';

import {
  importKey,
  planContext,
  USER_IMPORT_JOB,
  type ImportRow,
  type MigrationDeps,
} from './user-import.service.ts';

// The import's background job, apart from the requests that start, list and cancel it.

/** Rows written in one transaction by the import; a restart resumes after the last one committed. */
const WRITE_BATCH = 500;
/**
 * How long a running import's claim holds without its worker renewing it (every 5 s): after a
 * kill -9 another process (or the restarted one) resumes it within this, plus its poll, instead of
 * the 90-110 s it took with 120 s (issue 30 item 7). A shorter claim is safe here: a worker that
 * only seemed dead and comes back finds the cursor moved when it locks the import for its batch,
 * and stops (runImport), so no batch is written twice. The alternative, a register of live
 * processes whose claims a starting one could take at once, would need every process to keep a
 * heartbeat row: the claim's own renewal already is that heartbeat.
 */
export const IMPORT_LOCK_SECONDS = 20;
/** One invitation e-mail every 200 ms at most: 5 a second, 18,000 an hour. */
export const INVITE_INTERVAL_MS = 200;

/** The job: batch after batch from the last committed one, until the file ends or it is cancelled. */
export function registerUserImportJob(jobs: JobWorker, deps: MigrationDeps, log: FastifyBaseLogger): void {
  jobs.addHousekeeping(() => deleteAbandonedUploads(deps.db));
  jobs.register(
    USER_IMPORT_JOB,
    async (payload, context) => {
      const { importId } = payload as { importId: string };
      try {
        await runImport(deps, importId, context);
      } catch (error) {
        if (context.job.attempts >= context.job.max_attempts) {
          await deps.db
            .transaction()
            .execute(async (trx) => {
              const failed = await trx
                .updateTable('user_imports')
                .set({
                  status: 'failed',
                  finished_at: new Date(),
                  error: (error as Error).message.slice(0, 500),
                })
                .where('id', '=', importId)
                .where('status', 'in', ['queued', 'running'])
                .executeTakeFirst();
              if (failed.numUpdatedRows > 0n) await countErrorsNotReached(trx, importId);
            })
            .catch((err: unknown) => log.error({ err }, 'could not mark the import failed'));
        }
        throw error;
      }
    },
    { backoff: { baseMs: 2_000, capMs: 5 * 60_000 }, lockSeconds: IMPORT_LOCK_SECONDS },
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
      await tellIfLastSeatTaken(trx, deps.config, orgId, count('created'));
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

function toValid(row: StagedRow, key: KeyObject): ValidRow {
  return {
    row: row.row_number,
    email: row.email,
    domain: row.email.slice(row.email.lastIndexOf('@') + 1),
    firstName: row.first_name,
    lastName: row.last_name,
    groups: row.groups,
    password: row.password_enc ? decryptSecret(key, row.password_enc) : '',
    invite: row.invite,
    personalEmail: row.personal_email,
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
      personalEmail: p.row.personalEmail,
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
        // To the personal address when the file gave one (planBatch refused the rows needing one).
        { email: p.row.email, firstName: p.row.firstName, to: p.row.personalEmail ?? p.row.email },
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
