import type { FastifyBaseLogger } from 'fastify';
import type { ImapFlow } from 'imapflow';
import { decryptSecret } from '../../lib/crypto.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { PermanentJobError, type JobContext, type JobWorker } from '../jobs/job-worker.ts';
import { masterLogin, masterPassword } from '../mail/config/mail-master-user.ts';
import {
  closeImap,
  copyMessage,
  ensureFolder,
  LoginRefused,
  messageIdsIn,
  messagesAfter,
  openImap,
  sourceFolders,
  targetInfo,
  targetPath,
  type SourceMessage,
  type TargetInfo,
} from './imap-copy.ts';
import {
  endRun,
  failOrphanedRuns,
  foldersOf,
  mailMigrationById,
  num,
  saveFolder,
  saveProgress,
  type MailMigrationRow,
} from './mail-migration.repository.ts';
import { MAIL_MIGRATION_JOB, mailMigrationKey, type MailMigrationDeps } from './mail-migration.service.ts';
import { resolveSourceHost, SourceHostProblem } from './source-host.ts';

/**
 * Progress is written (and a cancel noticed) after this many messages or this long, whichever
 * comes first, and at each folder's end.
 */
const SAVE_EVERY = 25;
const SAVE_AFTER_MS = 2_000;

class Cancelled extends Error {}

export function registerMailMigrationJob(jobs: JobWorker, deps: MailMigrationDeps, log: FastifyBaseLogger) {
  jobs.register(
    MAIL_MIGRATION_JOB,
    async (payload, context) => {
      const { migrationId } = payload as { migrationId: string };
      try {
        await runMigration(deps, migrationId, context);
      } catch (error) {
        if (error instanceof Cancelled) return;
        const final = error instanceof PermanentJobError || context.job.attempts >= context.job.max_attempts;
        if (final) {
          await finish(deps, migrationId, 'failed', (error as Error).message.slice(0, 500)).catch(
            (err: unknown) => log.error({ err }, 'could not mark the mail migration failed'),
          );
        }
        throw error;
      }
    },
    { backoff: { baseMs: 5_000, capMs: 5 * 60_000 }, lockSeconds: 120 },
  );
  jobs.addHousekeeping(async () => {
    await failOrphanedRuns(deps.db);
  });
}

async function runMigration(deps: MailMigrationDeps, id: string, context: JobContext): Promise<void> {
  const { db, config } = deps;
  const row = await mailMigrationById(db, id);
  if (!row || (row.status !== 'queued' && row.status !== 'running')) return;
  await db.updateTable('mail_migrations').set({ status: 'running' }).where('id', '=', id).execute();
  if (!row.source_password_enc) throw new PermanentJobError('The password at the old provider is gone.');
  const password = decryptSecret(mailMigrationKey(config), row.source_password_enc);
  let address: string;
  try {
    address = await resolveSourceHost(row.source_host, config.migrationPrivateHosts ?? false);
  } catch (error) {
    if (error instanceof SourceHostProblem) throw new PermanentJobError(error.message);
    throw error;
  }
  let source: ImapFlow | undefined;
  let target: ImapFlow | undefined;
  try {
    try {
      source = await openImap({
        address,
        servername: row.source_host,
        port: row.source_port,
        tls: row.source_tls,
        user: row.source_login,
        pass: password,
      });
    } catch (error) {
      if (error instanceof LoginRefused) {
        throw new PermanentJobError(
          `The old provider refused the login for ${row.source_login} at ${row.source_host}. ` +
            'Check the login and the password (or app password), and that IMAP is turned on there.',
        );
      }
      throw error;
    }
    const imap = config.mail.imap ?? { host: '127.0.0.1', port: 143 };
    const loopback = /^(127\.|::1$|localhost$)/.test(imap.host);
    try {
      target = await openImap({
        address: imap.host,
        servername: config.mailHost,
        port: imap.port,
        // Dovecot takes plain-text logins on loopback only (mail-config); elsewhere, STARTTLS.
        tls: loopback ? 'none' : 'starttls',
        user: masterLogin(row.target_email),
        pass: masterPassword(config.secret),
      });
    } catch (error) {
      if (error instanceof LoginRefused) {
        throw new PermanentJobError(
          `Atrium’s mail server did not open the mailbox of ${row.target_email}: is mail-config’s ` +
            'master user installed (docs/mail.md), and does the user have a mailbox?',
        );
      }
      throw error;
    }
    await copyAll(deps, row, source, target, context);
  } finally {
    await closeImap(source);
    await closeImap(target);
  }
  await finish(deps, id, 'done', null);
}

interface Planned {
  source: string;
  target: string;
  uidValidity: number;
  copiedBefore: number;
  messages: SourceMessage[];
}

/** Plans every folder first (for the totals), then copies folder by folder. */
async function copyAll(
  deps: MailMigrationDeps,
  row: MailMigrationRow,
  source: ImapFlow,
  target: ImapFlow,
  context: JobContext,
): Promise<void> {
  const { db } = deps;
  const state = new Map((await foldersOf(db, row.id)).map((f) => [f.source_path, f]));
  const info = await targetInfo(target);
  const plans: Planned[] = [];
  for (const folder of await sourceFolders(source)) {
    const known = state.get(folder.path);
    try {
      const opened = await source.mailboxOpen(folder.path, { readOnly: true });
      const uidValidity = Number(opened.uidValidity);
      // Same UIDVALIDITY: go on after the last UID copied. A new one: copy again (duplicates are skipped).
      const sameUids = known && num(known.uid_validity) === uidValidity;
      plans.push({
        source: folder.path,
        target: targetPath(folder, info),
        uidValidity,
        copiedBefore: sameUids ? known.messages_copied : 0,
        messages: await messagesAfter(source, sameUids ? num(known.last_uid) : 0),
      });
    } catch (error) {
      if (!source.usable) throw error;
      // A folder the old provider will not open: recorded, and the others go on.
      await saveFolder(db, {
        migrationId: row.id,
        source: folder.path,
        target: targetPath(folder, info),
        uidValidity: known ? num(known.uid_validity) : 0,
        lastUid: known ? num(known.last_uid) : 0,
        copied: known?.messages_copied ?? 0,
        error: `${folder.path}: ${reasonOf(error)}`.slice(0, 500),
      });
    }
  }
  const progress = {
    messagesDone: row.messages_done,
    bytesDone: num(row.bytes_done),
    messagesTotal: row.messages_done + plans.reduce((n, p) => n + p.messages.length, 0),
    bytesTotal:
      num(row.bytes_done) + plans.reduce((n, p) => n + p.messages.reduce((b, m) => b + m.size, 0), 0),
  };
  if (!(await saveProgress(db, row.id, progress))) throw new Cancelled();
  for (const plan of plans) {
    await copyFolder(deps, row, plan, { source, target, info }, progress);
    await context.setProgress(progress);
  }
}

async function copyFolder(
  deps: MailMigrationDeps,
  row: MailMigrationRow,
  plan: Planned,
  imap: { source: ImapFlow; target: ImapFlow; info: TargetInfo },
  progress: { messagesDone: number; bytesDone: number },
): Promise<void> {
  const known = (await foldersOf(deps.db, row.id)).find((f) => f.source_path === plan.source);
  let lastUid = known && num(known.uid_validity) === plan.uidValidity ? num(known.last_uid) : 0;
  let copied = plan.copiedBefore;
  const save = async (error: string | null) => {
    await saveFolder(deps.db, {
      migrationId: row.id,
      source: plan.source,
      target: plan.target,
      uidValidity: plan.uidValidity,
      lastUid,
      copied,
      error,
    });
    if (!(await saveProgress(deps.db, row.id, progress))) throw new Cancelled();
    await deps.afterMailProgress?.(row.id);
  };
  try {
    // Empty folders too: the user finds the same folders as at the old provider.
    await ensureFolder(imap.target, plan.target, imap.info);
    if (plan.messages.length > 0) {
      // What is already there (an earlier run cut short, a new UIDVALIDITY) is not copied twice.
      const present = await messageIdsIn(imap.target, plan.target);
      await imap.source.mailboxOpen(plan.source, { readOnly: true });
      let sinceSave = 0;
      let savedAt = Date.now();
      for (const message of plan.messages) {
        if (!message.messageId || !present.has(message.messageId)) {
          if (await copyMessage(imap.source, imap.target, message.uid, plan.target)) copied++;
          if (message.messageId) present.add(message.messageId);
        }
        lastUid = message.uid;
        progress.messagesDone++;
        progress.bytesDone += message.size;
        if (++sinceSave >= SAVE_EVERY || Date.now() - savedAt >= SAVE_AFTER_MS) {
          sinceSave = 0;
          savedAt = Date.now();
          await save(null);
        }
      }
    }
    await save(null);
  } catch (error) {
    if (error instanceof Cancelled) throw error;
    // A lost connection is the whole run's problem (the job retries); anything else is this folder's.
    if (!imap.source.usable || !imap.target.usable) throw error;
    await save(`${plan.source}: ${reasonOf(error)}`.slice(0, 500));
  }
}

/** The server's own words (an IMAP NO's text) where there are some, without Dovecot's timings. */
const reasonOf = (error: unknown) =>
  ((error as { responseText?: string }).responseText ?? (error as Error).message).replace(
    /\s*\([\d.]+ \+ [\d.]+(?: \+ [\d.]+)? secs\)\.?$/,
    '',
  );

/** Ends the run (erasing the password) and logs it, unless it was cancelled meanwhile. */
async function finish(
  deps: MailMigrationDeps,
  id: string,
  status: 'done' | 'failed',
  error: string | null,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const ended = await endRun(trx, id, status, error);
    if (!ended) return;
    await recordActivity(trx, {
      organizationId: ended.organization_id,
      actor: null,
      action: status === 'done' ? 'migration.mail_finished' : 'migration.mail_failed',
      target: { type: 'mail_migration', id, label: ended.target_email },
      details: {
        source: `${ended.source_login}@${ended.source_host}`,
        messages: ended.messages_done,
        ...(error ? { error } : {}),
      },
    });
  });
}
