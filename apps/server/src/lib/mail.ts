import nodemailer from 'nodemailer';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db, DbOrTrx } from '../db/database.ts';
import {
  enqueue,
  enqueueMany,
  type ClaimHere,
  type Job,
  type NewJob,
} from '../modules/jobs/jobs.repository.ts';
import { PermanentJobError, type JobWorker } from '../modules/jobs/job-worker.ts';
import { decryptSecret, deriveKey, encryptSecret } from './crypto.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /**
   * A one-time code or link carried by the message; logged only when there is no SMTP
   * server, so someone trying Atrium locally can still sign in.
   */
  secretForOutboxLog?: string;
}

export interface Mailer {
  /**
   * Queues a message; pass the caller's transaction to queue it with the rows it belongs to
   * (a code and its e-mail commit together). Returns the job id for `deliverNow`.
   */
  queue(db: DbOrTrx, message: MailMessage): Promise<string>;
  /**
   * Queues many messages in one statement, each not before its `runAt` (an import spaces its
   * invitations out so the mail server is not flooded). The worker sends them when due.
   */
  queueMany(db: DbOrTrx, messages: Array<{ message: MailMessage; runAt: Date }>): Promise<void>;
  /**
   * Sends a queued message now if it is due, waiting a few seconds at most. False when it has
   * not gone out yet: the queue keeps retrying it with backoff.
   */
  deliverNow(jobId: string): Promise<boolean>;
  /** `queue` then `deliverNow`. */
  send(message: MailMessage): Promise<{ sent: boolean }>;
  /**
   * A message as the job that carries it (sealed), claimed by this process, for a statement that
   * inserts it with its own rows (`insertClaimedJob`); then `deliverClaimed` after the commit.
   */
  claimedJob(message: MailMessage): { job: NewJob; claim: ClaimHere };
  /** `deliverNow` for a message whose job this process inserted claimed: no claim statement. */
  deliverClaimed(job: Job): Promise<boolean>;
  /** Sends such a message once the request has answered, without waiting for it. */
  deliverClaimedLater(job: Job): void;
}

export type MailDelivery = (message: MailMessage, db: Db) => Promise<void>;

export const MAIL_JOB = 'mail.send';
/** Tries in all before a message is given up (about 2 hours with the backoff below). */
const MAIL_MAX_ATTEMPTS = 12;
const MAIL_BACKOFF = { baseMs: 10_000, capMs: 15 * 60_000 };
/** How long a request waits for its own message before answering "it will arrive shortly". */
const DELIVER_NOW_WAIT_MS = 3000;
/**
 * SMTP waits: a server that accepts the connection and never answers costs seconds, not the
 * 30 s-and-more of nodemailer's defaults; the queue tries again later.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 5000, greetingTimeout: 5000, socketTimeout: 10_000 };
/** Outbox messages hold live codes and links: they go after a week. */
const OUTBOX_KEEP_DAYS = 7;

const mailKey = (config: Config) => deriveKey(config.secret, 'mail');

/**
 * Every message goes through the job queue: sealed with an ATRIUM_SECRET-derived key in the
 * job's payload (it carries codes and set-password links), sent by the worker to SMTP_URL, or
 * without it written (sealed too) to the outbox table with one log line. Registers the mail
 * handler on the worker.
 */
export function createMailer(
  config: Config,
  db: Db,
  log: FastifyBaseLogger,
  worker: JobWorker,
  /** Replaces SMTP and the outbox (benchmarks capture codes this way); the queue stays. */
  deliverTo?: MailDelivery,
): Mailer {
  const key = mailKey(config);
  const deliver = deliverTo ?? (config.smtpUrl ? smtpDelivery(config) : outboxDelivery(config, log));
  worker.register(
    MAIL_JOB,
    async (payload) => {
      const sealed = (payload as { sealed?: unknown }).sealed;
      let message: MailMessage;
      try {
        message = JSON.parse(decryptSecret(key, String(sealed))) as MailMessage;
      } catch {
        throw new PermanentJobError('The message cannot be unsealed (was ATRIUM_SECRET changed?)');
      }
      await deliver(message, db);
    },
    { backoff: MAIL_BACKOFF, lockSeconds: 60, erasePayloadWhenDone: true },
  );
  worker.addHousekeeping(() => purgeOutbox(db));

  const mailJob = (message: MailMessage): NewJob => ({
    kind: MAIL_JOB,
    payload: { sealed: encryptSecret(key, JSON.stringify(message)) },
    maxAttempts: MAIL_MAX_ATTEMPTS,
  });
  const mailer: Mailer = {
    queue: (trx, message) => enqueue(trx, mailJob(message)),
    queueMany: (trx, messages) =>
      enqueueMany(
        trx,
        messages.map(({ message, runAt }) => ({ ...mailJob(message), runAt })),
      ),
    async deliverNow(jobId) {
      try {
        return (await worker.runNow(jobId, DELIVER_NOW_WAIT_MS)) === 'done';
      } catch (err) {
        log.warn({ err }, 'could not try the queued message now');
        return false;
      }
    },
    claimedJob: (message) => ({ job: mailJob(message), claim: worker.claimHere(MAIL_JOB) }),
    async deliverClaimed(job) {
      return (await worker.runClaimed(job, DELIVER_NOW_WAIT_MS)) === 'done';
    },
    deliverClaimedLater: (job) => worker.runClaimedAfterAnswer(job),
    async send(message) {
      const jobId = await mailer.queue(db, message);
      return { sent: await mailer.deliverNow(jobId) };
    },
  };
  return mailer;
}

function smtpDelivery(config: Config): (message: MailMessage) => Promise<void> {
  const transport = nodemailer.createTransport({ url: config.smtpUrl, ...SMTP_TIMEOUTS });
  return async (message) => {
    await transport.sendMail({
      from: config.mailFrom,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
    });
  };
}

/** No SMTP server: the outbox table (bodies sealed) and one log line, with the code, per message. */
function outboxDelivery(config: Config, log: FastifyBaseLogger) {
  const key = mailKey(config);
  return async (message: MailMessage, db: Db) => {
    await db
      .insertInto('mail_outbox')
      .values({
        recipient: message.to,
        subject: message.subject,
        text_body: encryptSecret(key, message.text),
        html_body: message.html === undefined ? null : encryptSecret(key, message.html),
      })
      .execute();
    log.info(
      { mail: { to: message.to, subject: message.subject, code: message.secretForOutboxLog } },
      `outbox: "${message.subject}" to ${message.to}${message.secretForOutboxLog ? ` (${message.secretForOutboxLog})` : ''}`,
    );
  };
}

export interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  createdAt: Date;
}

/** The outbox as the operator reads it (`npm run atrium -- outbox`): bodies unsealed, newest first. */
export async function readOutbox(
  db: DbOrTrx,
  config: Config,
  options: { to?: string; limit?: number } = {},
): Promise<OutboxMessage[]> {
  const key = mailKey(config);
  let query = db
    .selectFrom('mail_outbox')
    .selectAll()
    .orderBy('created_at', 'desc')
    .limit(options.limit ?? 50);
  if (options.to) query = query.where('recipient', '=', options.to.toLowerCase());
  const rows = await query.execute();
  const open = (body: string) => {
    try {
      return decryptSecret(key, body);
    } catch {
      return '(sealed with another ATRIUM_SECRET)';
    }
  };
  return rows.map((row) => ({
    id: row.id,
    to: row.recipient,
    subject: row.subject,
    text: open(row.text_body),
    html: row.html_body === null ? null : open(row.html_body),
    createdAt: row.created_at,
  }));
}

export async function purgeOutbox(db: DbOrTrx): Promise<void> {
  await db
    .deleteFrom('mail_outbox')
    .where('created_at', '<', sql<Date>`now() - make_interval(days => ${OUTBOX_KEEP_DAYS})`)
    .execute();
}
