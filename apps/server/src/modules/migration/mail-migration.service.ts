import type {
  MailMigrationDetail,
  MailMigrationJob,
  StartMailMigration,
} from '@atrium/contracts/mail-migration';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { deriveKey, encryptSecret } from '../../lib/crypto.ts';
import { badRequest, conflict, fieldError, notFound } from '../../lib/errors.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { cancelJobs, enqueue } from '../jobs/jobs.repository.ts';
import { mailboxOf } from '../mail/lookups/mail-lookups.repository.ts';
import type { Actor } from '../organizations/actor.ts';
import { actorLabel } from '../users/users.repository.ts';
import {
  activeMigrationFor,
  endRun,
  findMailMigration,
  foldersOf,
  listMailMigrations,
  lockMailMigration,
  num,
  type MailMigrationRow,
} from './mail-migration.repository.ts';
import { resolveSourceHost, SourceHostProblem } from './source-host.ts';

export const MAIL_MIGRATION_JOB = 'migration.mail';
const LIST_LIMIT = 100;

export interface MailMigrationDeps {
  db: Db;
  config: Config;
  /** Tests: after each progress write of a run (to cancel it there). */
  afterMailProgress?: (migrationId: string) => Promise<void>;
}

/** Seals the old provider's passwords at rest (erased when each run ends). */
export const mailMigrationKey = (config: Config) => deriveKey(config.secret, 'mail-migration');

export function toMailJob(row: MailMigrationRow, folderErrors: number): MailMigrationJob {
  return {
    kind: 'mail',
    id: row.id,
    status: row.status,
    email: row.target_email,
    source: { host: row.source_host, port: row.source_port, tls: row.source_tls, login: row.source_login },
    runs: row.runs,
    messagesTotal: row.messages_total,
    messagesDone: row.messages_done,
    bytesTotal: num(row.bytes_total),
    bytesDone: num(row.bytes_done),
    folderErrors,
    startedBy: row.started_by_label,
    createdAt: row.created_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    error: row.error,
  };
}

export async function listMailJobs(db: Db, organizationId: string): Promise<MailMigrationJob[]> {
  const rows = await listMailMigrations(db, organizationId, LIST_LIMIT);
  return rows.map((r) => toMailJob(r, r.folder_errors ?? 0));
}

export async function getMailMigration(
  db: Db,
  organizationId: string,
  id: string,
): Promise<MailMigrationDetail> {
  const row = await findMailMigration(db, organizationId, id);
  if (!row) throw notFound('The mail migration');
  const folders = await foldersOf(db, id);
  return {
    ...toMailJob(row, folders.filter((f) => f.error).length),
    folders: folders.map((f) => ({
      source: f.source_path,
      target: f.target_path,
      messagesCopied: f.messages_copied,
      error: f.error,
    })),
  };
}

/** The source must be reachable and public (or the operator allows private hosts). */
async function checkSource(deps: MailMigrationDeps, host: string, field = 'host'): Promise<void> {
  try {
    await resolveSourceHost(host, deps.config.migrationPrivateHosts ?? false);
  } catch (error) {
    if (error instanceof SourceHostProblem) throw fieldError(field, error.message);
    throw error;
  }
}

/** The target: a user of this organisation whose mailbox can be opened (active). */
async function targetUser(db: Db, organizationId: string, email: string) {
  const mailbox = await mailboxOf(db, email);
  if (!mailbox || mailbox.organizationId !== organizationId) {
    return `${email} is not a user of this organisation with a mailbox`;
  }
  if (mailbox.status === 'invited') {
    return `${email} has not set a password yet: migrate their mail once they have signed in`;
  }
  if (mailbox.status !== 'active') return `${email} is suspended: reactivate the user first`;
  return mailbox;
}

/**
 * Starts one job per mailbox, all in one transaction with their activity entries: a file with a
 * bad row starts nothing. A mailbox with a migration still running is refused.
 */
export async function startMailMigrations(
  deps: MailMigrationDeps,
  jobs: JobWorker,
  actor: Actor,
  inputs: StartMailMigration[],
  rowLabel: (index: number) => string = () => '',
): Promise<MailMigrationJob[]> {
  const { db } = deps;
  const targets: Array<{ userId: string; email: string }> = [];
  const hosts = new Set<string>();
  for (const [i, input] of inputs.entries()) {
    const target = await targetUser(db, actor.organizationId, input.email);
    if (typeof target === 'string') throw fieldError('email', `${rowLabel(i)}${target}`);
    if (await activeMigrationFor(db, actor.organizationId, target.userId)) {
      throw conflict(
        `${rowLabel(i)}A migration into ${input.email} is already running`,
        undefined,
        'already_running',
      );
    }
    if (!hosts.has(input.host)) await checkSource(deps, input.host);
    hosts.add(input.host);
    targets.push(target);
  }
  const key = mailMigrationKey(deps.config);
  const label = await actorLabel(db, actor.organizationId, actor.userId);
  const created = await db.transaction().execute(async (trx) => {
    const rows: MailMigrationRow[] = [];
    for (const [i, input] of inputs.entries()) {
      const row = await trx
        .insertInto('mail_migrations')
        .values({
          organization_id: actor.organizationId,
          user_id: targets[i]!.userId,
          target_email: targets[i]!.email,
          source_host: input.host,
          source_port: input.port,
          source_tls: input.tls,
          source_login: input.login,
          source_password_enc: encryptSecret(key, input.password),
          started_by: actor.userId,
          started_by_label: label,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      rows.push(await queueRun(trx, row, actor, label, 'migration.mail_started'));
    }
    return rows;
  });
  jobs.wake();
  return created.map((row) => toMailJob(row, 0));
}

async function queueRun(
  trx: DbOrTrx,
  row: MailMigrationRow,
  actor: Actor,
  label: string,
  action: string,
): Promise<MailMigrationRow> {
  const jobId = await enqueue(trx, {
    kind: MAIL_MIGRATION_JOB,
    payload: { migrationId: row.id },
    organizationId: actor.organizationId,
    maxAttempts: 3,
  });
  await recordActivity(trx, {
    organizationId: actor.organizationId,
    actor: { userId: actor.userId, label },
    action,
    target: { type: 'mail_migration', id: row.id, label: row.target_email },
    ip: actor.ip,
    details: { source: `${row.source_login}@${row.source_host}:${row.source_port}` },
  });
  return trx
    .updateTable('mail_migrations')
    .set({ job_id: jobId })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Runs a finished migration again with the password asked anew: folders whose UIDVALIDITY is
 * unchanged go on after the last UID copied, so only new messages are copied.
 */
export async function rerunMailMigration(
  deps: MailMigrationDeps,
  jobs: JobWorker,
  actor: Actor,
  id: string,
  password: string,
): Promise<MailMigrationJob> {
  const existing = await findMailMigration(deps.db, actor.organizationId, id);
  if (!existing) throw notFound('The mail migration');
  const target = await targetUser(deps.db, actor.organizationId, existing.target_email);
  if (typeof target === 'string') throw badRequest(target);
  await checkSource(deps, existing.source_host);
  const label = await actorLabel(deps.db, actor.organizationId, actor.userId);
  const saved = await deps.db.transaction().execute(async (trx) => {
    const locked = (await lockMailMigration(trx, id))!;
    if (locked.status === 'queued' || locked.status === 'running') {
      throw conflict('This migration is still running', undefined, 'already_running');
    }
    const reset = await trx
      .updateTable('mail_migrations')
      .set((eb) => ({
        status: 'queued',
        runs: eb('runs', '+', 1),
        source_password_enc: encryptSecret(mailMigrationKey(deps.config), password),
        messages_total: 0,
        messages_done: 0,
        bytes_total: 0,
        bytes_done: 0,
        error: null,
        finished_at: null,
        run_started_at: new Date(),
      }))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    // The last run's folder errors are its own; this run records its own.
    await trx
      .updateTable('mail_migration_folders')
      .set({ error: null })
      .where('migration_id', '=', id)
      .execute();
    return queueRun(trx, reset, actor, label, 'migration.mail_rerun');
  });
  jobs.wake();
  return toMailJob(saved, 0);
}

/** Stops a migration after the message in progress; what was copied stays, the password goes. */
export async function cancelMailMigration(
  deps: MailMigrationDeps,
  actor: Actor,
  id: string,
): Promise<MailMigrationJob> {
  const label = await actorLabel(deps.db, actor.organizationId, actor.userId);
  return deps.db.transaction().execute(async (trx) => {
    const row = await findMailMigration(trx, actor.organizationId, id);
    if (!row) throw notFound('The mail migration');
    const ended = await endRun(trx, id, 'cancelled', null);
    if (!ended) throw conflict('This migration has already finished', undefined, 'already_finished');
    if (ended.job_id) await cancelJobs(trx, [ended.job_id]);
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label },
      action: 'migration.mail_cancelled',
      target: { type: 'mail_migration', id, label: row.target_email },
      ip: actor.ip,
      details: { messagesDone: ended.messages_done, messages: ended.messages_total },
    });
    return toMailJob(ended, 0);
  });
}
