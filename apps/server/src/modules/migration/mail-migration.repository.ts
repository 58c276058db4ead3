import { sql, type Selectable } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import type {
  MailMigrationFoldersTable,
  MailMigrationsTable,
  MailMigrationStatus,
} from '../../db/mail-migration-tables.ts';

/** The queries of mail migration; every one that a request makes takes the organisation id. */

export type MailMigrationRow = Selectable<MailMigrationsTable>;
export type MailMigrationFolderRow = Selectable<MailMigrationFoldersTable>;

export const num = (value: string | number | bigint) => Number(value);

export async function findMailMigration(db: DbOrTrx, organizationId: string, id: string) {
  return db
    .selectFrom('mail_migrations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The job's read: the id alone (the job carries no organisation). */
export async function mailMigrationById(db: DbOrTrx, id: string) {
  return db.selectFrom('mail_migrations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function lockMailMigration(db: DbOrTrx, id: string) {
  return db.selectFrom('mail_migrations').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The latest migrations, each with how many of its folders failed in its last run. */
export async function listMailMigrations(db: DbOrTrx, organizationId: string, limit: number) {
  return db
    .selectFrom('mail_migrations as m')
    .selectAll('m')
    .select((eb) =>
      eb
        .selectFrom('mail_migration_folders as f')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('f.migration_id', '=', 'm.id')
        .where('f.error', 'is not', null)
        .as('folder_errors'),
    )
    .where('m.organization_id', '=', organizationId)
    .orderBy('m.created_at', 'desc')
    .limit(limit)
    .execute();
}

export async function foldersOf(db: DbOrTrx, migrationId: string): Promise<MailMigrationFolderRow[]> {
  return db
    .selectFrom('mail_migration_folders')
    .selectAll()
    .where('migration_id', '=', migrationId)
    .orderBy('source_path')
    .execute();
}

/** A mailbox migration not yet finished for this user (one at a time per mailbox). */
export async function activeMigrationFor(db: DbOrTrx, organizationId: string, userId: string) {
  return db
    .selectFrom('mail_migrations')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
}

/** A folder's state after a run (or part of one): where it goes and the last UID copied. */
export async function saveFolder(
  db: DbOrTrx,
  folder: {
    migrationId: string;
    source: string;
    target: string;
    uidValidity: number;
    lastUid: number;
    copied: number;
    error: string | null;
  },
): Promise<void> {
  await db
    .insertInto('mail_migration_folders')
    .values({
      migration_id: folder.migrationId,
      source_path: folder.source,
      target_path: folder.target,
      uid_validity: folder.uidValidity,
      last_uid: folder.lastUid,
      messages_copied: folder.copied,
      error: folder.error,
    })
    .onConflict((oc) =>
      oc.columns(['migration_id', 'source_path']).doUpdateSet({
        target_path: folder.target,
        uid_validity: folder.uidValidity,
        last_uid: folder.lastUid,
        messages_copied: folder.copied,
        error: folder.error,
      }),
    )
    .execute();
}

/** Progress of the running run; false when it is no longer running (cancelled). */
export async function saveProgress(
  db: DbOrTrx,
  id: string,
  progress: Partial<{ messagesTotal: number; bytesTotal: number; messagesDone: number; bytesDone: number }>,
): Promise<boolean> {
  const result = await db
    .updateTable('mail_migrations')
    .set({
      ...(progress.messagesTotal !== undefined ? { messages_total: progress.messagesTotal } : {}),
      ...(progress.bytesTotal !== undefined ? { bytes_total: progress.bytesTotal } : {}),
      ...(progress.messagesDone !== undefined ? { messages_done: progress.messagesDone } : {}),
      ...(progress.bytesDone !== undefined ? { bytes_done: progress.bytesDone } : {}),
    })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Ends the run, however it ended: the source password is erased with it. Only a run still going
 * can end (a cancelled one stays cancelled); returns the row if this call ended it.
 */
export async function endRun(
  db: DbOrTrx,
  id: string,
  status: Exclude<MailMigrationStatus, 'queued' | 'running'>,
  error: string | null,
) {
  return db
    .updateTable('mail_migrations')
    .set({ status, error, finished_at: new Date(), source_password_enc: null })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .returningAll()
    .executeTakeFirst();
}

/**
 * Housekeeping: a run whose job is gone or ended without it (the worker died on the last attempt)
 * fails, and its password goes with it.
 */
export async function failOrphanedRuns(db: DbOrTrx): Promise<number> {
  const result = await db
    .updateTable('mail_migrations')
    .set({
      status: 'failed',
      error: 'The migration stopped unexpectedly. Run it again to copy what is missing.',
      finished_at: new Date(),
      source_password_enc: null,
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
              .whereRef('jobs.id', '=', 'mail_migrations.job_id')
              .where('jobs.status', 'in', ['queued', 'running']),
          ),
        ),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
