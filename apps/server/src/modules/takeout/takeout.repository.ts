import { sql, type Selectable } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import type { TakeoutPhase, TakeoutsTable } from '../../db/takeout-tables.ts';

/** Takeout's own queries; every one a request makes takes the organisation id. */

export type TakeoutRow = Selectable<TakeoutsTable>;

export async function findTakeout(db: DbOrTrx, organizationId: string, id: string) {
  return db
    .selectFrom('takeouts')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The job's read: the id alone (the job carries no organisation). */
export async function takeoutById(db: DbOrTrx, id: string) {
  return db.selectFrom('takeouts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listTakeouts(db: DbOrTrx, organizationId: string, limit: number) {
  return db
    .selectFrom('takeouts')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function runningTakeout(db: DbOrTrx, organizationId: string) {
  return db
    .selectFrom('takeouts')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
}

export interface TakeoutProgress {
  phase: TakeoutPhase;
  rowsDone: number;
  mailboxesTotal: number;
  mailboxesDone: number;
  messagesDone: number;
}

export async function saveProgress(db: DbOrTrx, id: string, progress: TakeoutProgress): Promise<void> {
  await db
    .updateTable('takeouts')
    .set({
      status: 'running',
      phase: progress.phase,
      rows_done: progress.rowsDone,
      mailboxes_total: progress.mailboxesTotal,
      mailboxes_done: progress.mailboxesDone,
      messages_done: progress.messagesDone,
    })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

/** Ends a run still going; returns the row if this call ended it. */
export async function endTakeout(
  db: DbOrTrx,
  id: string,
  outcome:
    | { status: 'done'; filePath: string; sizeBytes: number; expiresAt: Date }
    | { status: 'failed'; error: string },
) {
  return db
    .updateTable('takeouts')
    .set(
      outcome.status === 'done'
        ? {
            status: 'done',
            phase: 'finished',
            file_path: outcome.filePath,
            size_bytes: outcome.sizeBytes,
            expires_at: outcome.expiresAt,
            finished_at: new Date(),
          }
        : { status: 'failed', error: outcome.error, finished_at: new Date() },
    )
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .returningAll()
    .executeTakeFirst();
}

/** Housekeeping: a run whose job is gone or ended without it (the worker died on its last try) fails. */
export async function failOrphanedTakeouts(db: DbOrTrx): Promise<void> {
  await db
    .updateTable('takeouts')
    .set({
      status: 'failed',
      error: 'The export stopped unexpectedly. Start it again.',
      finished_at: new Date(),
    })
    .where('status', 'in', ['queued', 'running'])
    .where((eb) =>
      eb.or([
        eb('job_id', 'is', null),
        eb.not(
          eb.exists(
            eb
              .selectFrom('jobs')
              .select('jobs.id')
              .whereRef('jobs.id', '=', 'takeouts.job_id')
              .where('jobs.status', 'in', ['queued', 'running']),
          ),
        ),
      ]),
    )
    .execute();
}

/** Archives past their expiry whose file is still on disk: housekeeping removes them. */
export async function expiredFiles(db: DbOrTrx) {
  return db
    .selectFrom('takeouts')
    .select(['id', 'file_path'])
    .where('file_path', 'is not', null)
    .where('expires_at', '<', sql<Date>`now()`)
    .limit(100)
    .execute();
}

export async function forgetFile(db: DbOrTrx, id: string): Promise<void> {
  await db.updateTable('takeouts').set({ file_path: null }).where('id', '=', id).execute();
}
