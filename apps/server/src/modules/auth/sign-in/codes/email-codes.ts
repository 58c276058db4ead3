import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Config } from '../../../../config.ts';
import type { Db, DbOrTrx } from '../../../../db/database.ts';
import { decryptSecret, deriveKey, encryptSecret, randomDigits } from '../../../../lib/crypto.ts';
import { fieldError, tooManyRequests } from '../../../../lib/errors.ts';
import type { MailMessage, Mailer } from '../../../../lib/mail.ts';
import { insertClaimedJob, jobFromJson, type Job } from '../../../jobs/jobs.repository.ts';

/**
 * 6-digit e-mail codes for any purpose (docs/sign-in.md): a code lives 10 minutes,
 * dies after 5 wrong tries, and a new one is sent only 60 s after the last (the seed spec's
 * ReSend 60) and re-sent at most 5 times an hour. Only an HMAC of the code is stored.
 */
export const CODE_TTL_SECONDS = 10 * 60;
export const CODE_MAX_ATTEMPTS = 5;
export const RESEND_AFTER_SECONDS = 60;
/**
 * Codes one address gets for one purpose in an hour, whichever sign-ins (or sign-up flows)
 * asked for them: the first and at most 5 re-sends. Counted per address, not
 * per sign-in: anyone who knows a password can start new sign-ins at will, and each fresh code
 * would otherwise bring 5 more guesses. A code counts once its e-mail has gone out: while the
 * mail server is down, codes that reach nobody do not use up the hour. A code entered right does
 * not count either (issue 17): it gave no guesses away, and the owner's seventh sign-in in an hour
 * must not be refused for it.
 */
export const MAX_CODES_PER_HOUR = 6;

export type CodePurpose = 'sign-in' | 'password-reset' | 'sign-up' | (string & {});

export interface CodeTarget {
  purpose: CodePurpose;
  /** The lowercased e-mail address the code goes to. */
  identifier: string;
  /** What the code completes (a sign-in interaction, a sign-up…); '' when nothing narrower. */
  context?: string;
}

function hashCode(config: Config, id: string, code: string): string {
  return createHmac('sha256', deriveKey(config.secret, 'email-codes'))
    .update(`${id}:${code}`)
    .digest('base64url');
}

/** The key sealing a code so that it can be sent again (`resendLiveCode`); the HMAC is what is checked. */
const sealKey = (config: Config) => deriveKey(config.secret, 'email-codes-sealed');

/** Codes whose message was sent (or that predate the queue); SQL over `email_codes`. */
const mailWentOut = sql<boolean>`(email_codes.mail_job_id is null or exists (
  select 1 from jobs where jobs.id = email_codes.mail_job_id and jobs.status = 'done'))`;
/** The codes the hourly cap counts: sent, and not entered right. */
const countsTowardCap = sql<boolean>`(${mailWentOut} and email_codes.used_at is null)`;
/**
 * The codes the caps of browser-bound codes count: not entered right, and guessed at or with a
 * message sent or still on its way. Counting the ones on their way keeps concurrent requests
 * from many browsers from all passing before the first message goes out; a message cancelled
 * (its code replaced) or given up on reached nobody, so its code counts only if it was guessed at.
 */
const countsTowardBoundCaps = sql<boolean>`(email_codes.used_at is null and (email_codes.attempts > 0
  or email_codes.mail_job_id is null or exists (select 1 from jobs where jobs.id = email_codes.mail_job_id
    and jobs.status in ('queued', 'running', 'done'))))`;

/**
 * Codes bound to the browser that asked for them (password reset, issue 38 item 4): the code's
 * `context` is the browser's device cookie hash, and only that browser may enter it, so tries
 * spent by someone else end only their own codes. A new code ends only the same browser's; each
 * browser gets `MAX_CODES_PER_HOUR`; all browsers the account has not signed in with share
 * `unknownBrowsersCap` (what bounds guessing, as the one per-address cap did before); the
 * account's known browsers share nothing with anyone. A code counts while it lives and for an
 * hour after it ends, so no 60-minute window holds more counted codes than the caps.
 */
export interface BrowserBound {
  /** The browser asking is one the account has signed in with (known-devices.ts). */
  knownDevice: boolean;
  unknownBrowsersCap: number;
}

/**
 * How a code is mailed: the message carrying it, and (`queued`) what goes with that message in the
 * transaction that queues it (a reset message's link: no message without its link, nor the reverse).
 */
export interface CodeMail {
  mailer: Mailer;
  message: (code: string) => MailMessage;
  queued?: (trx: DbOrTrx, job: Job) => Promise<void>;
}

/**
 * Issues a new code (the previous one of the same target dies) or refuses with 429 and the
 * time to wait. With `mail`, the message carrying the code is stored with it, claimed by this
 * process (and the dead code's message, if still unsent, is cancelled): call
 * `mailer.deliverClaimed` with the returned `mailJob` to send it at once.
 */
export async function issueEmailCode(
  db: Db,
  config: Config,
  target: CodeTarget,
  mail?: CodeMail,
  /**
   * `beyondHourlyCap`: the hourly cap does not refuse this one (a sign-in from a browser the
   * account has signed in with: the cap is there for codes that someone else asked for).
   */
  options: { beyondHourlyCap?: boolean; browserBound?: BrowserBound } = {},
): Promise<{ code: string; resendAvailableAt: Date; mailJob: Job | null }> {
  const context = target.context ?? '';
  const bound = options.browserBound;
  // The codes the caps count, and the codes a new one ends: per address, or per browser.
  const counted = bound ? sql`(context = ${context} and ${countsTowardBoundCaps})` : countsTowardCap;
  const shared = bound ? sql`(not known_device and ${countsTowardBoundCaps})` : sql`false`;
  const window = bound
    ? sql`expires_at > now() - interval '1 hour'`
    : sql`created_at > now() - interval '1 hour'`;
  const sameScope = bound ? sql`context = ${context}` : sql`true`;
  const sharedCap = bound && !bound.knownDevice ? bound.unknownBrowsersCap : null;
  const id = randomUUID();
  const code = randomDigits(6);
  const carrier = mail?.mailer.claimedJob(mail.message(code));
  return db.transaction().execute(async (trx) => {
    // Two concurrent requests must not both pass the 60-second rule: the lock is taken in a
    // statement of its own, so the next one reads what an earlier holder committed.
    await sql`select pg_advisory_xact_lock(hashtext(${`${target.purpose}:${target.identifier}`}))`.execute(
      trx,
    );
    // The rules' inputs, and (when they allow it) the previous code's end, the message and the
    // new code pointing at it, in one statement (issue 18); `refusal` below words a refusal.
    const { rows } = await sql<{
      count: number;
      shared: number;
      last: Date | null;
      first: Date | null;
      now: Date;
      ok: boolean;
      job: Job | null;
    }>`
      with sent as (
        select (count(*) filter (where ${counted}))::int as count,
          (count(*) filter (where ${shared}))::int as shared,
          -- The 60-second wait is a re-send rule, so per context; the hourly cap spans them all
          -- (browser-bound codes: the browser's own, and the cap shared by unknown browsers).
          max(created_at) filter (where context = ${context}) as last,
          min(created_at) filter (where ${counted}) as first,
          now() as now
        from email_codes
        where purpose = ${target.purpose} and identifier = ${target.identifier} and ${window}
      ), allowed as (
        select (last is null or last + make_interval(secs => ${RESEND_AFTER_SECONDS}) <= now)
          and (${!!options.beyondHourlyCap}::boolean or not (count >= ${MAX_CODES_PER_HOUR} and first is not null))
          and (${sharedCap}::int is null or shared < ${sharedCap}::int) as ok
        from sent
      ), killed as (
        update email_codes set consumed_at = now()
        where purpose = ${target.purpose} and identifier = ${target.identifier} and consumed_at is null
          and ${sameScope} and (select ok from allowed)
        returning mail_job_id
      ), cancelled as (
        -- A dead code's message still waiting for the mail server would only confuse.
        update jobs set status = 'cancelled', updated_at = now()
        where id in (select mail_job_id from killed) and status in ('queued', 'running')
      ), job as (
        ${carrier ? insertClaimedJob(carrier.job, carrier.claim, sql`(select ok from allowed)`) : sql`select null::uuid as id where false`}
      ), issued as (
        insert into email_codes (id, purpose, identifier, context, known_device, code_hash, code_sealed, mail_job_id, expires_at)
        select ${id}, ${target.purpose}, ${target.identifier}, ${context}, ${!!bound?.knownDevice},
          ${hashCode(config, id, code)}, ${encryptSecret(sealKey(config), code)}, (select id from job),
          now() + make_interval(secs => ${CODE_TTL_SECONDS})
        where (select ok from allowed)
      )
      select count, shared, last, first, now, (select ok from allowed) as ok, (select to_jsonb(j) from job j) as job
      from sent`.execute(trx);
    const sent = rows[0]!;
    const now = new Date(sent.now);
    // The statement decided; JavaScript's milliseconds may round a wait of under one away.
    if (!sent.ok)
      throw refusal(sent, now, sharedCap) ?? tooManyRequests('You can ask for a new code in 1 seconds.', 1);
    const mailJob = sent.job && jobFromJson(sent.job);
    if (mailJob) await mail?.queued?.(trx, mailJob);
    return {
      code,
      resendAvailableAt: new Date(now.getTime() + RESEND_AFTER_SECONDS * 1000),
      mailJob,
    };
  });
}

/** Why a new code may not be sent now (the rules `issueEmailCode` applies in SQL), or nothing. */
function refusal(
  sent: { count: number; shared: number; last: Date | null; first: Date | null },
  now: Date,
  sharedCap: number | null = null,
) {
  if (sent.last) {
    const resendAt = new Date(new Date(sent.last).getTime() + RESEND_AFTER_SECONDS * 1000);
    if (resendAt > now) {
      const wait = Math.ceil((resendAt.getTime() - now.getTime()) / 1000);
      return tooManyRequests(`You can ask for a new code in ${wait} seconds.`, wait);
    }
  }
  if (sent.count >= MAX_CODES_PER_HOUR && sent.first) {
    // The oldest code of the hour leaves the count first; then one more may be sent.
    const until = new Date(new Date(sent.first).getTime() + 60 * 60 * 1000);
    const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000));
    return tooManyRequests(
      `Too many codes were sent to this address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      (until.getTime() - now.getTime()) / 1000,
    );
  }
  // Only the reset flow meets this one, and it tells nobody (its answer is always the same).
  if (sharedCap !== null && sent.shared >= sharedCap) {
    return tooManyRequests('Too many codes were sent to this address. Try again later.', 60 * 60);
  }
  return undefined;
}

/**
 * Sends the target's live code again, the same code with the same expiry, instead of issuing a new
 * one (issue 30): a second reset request, or a new sign-in while the last one's code still lives,
 * then uses up none of the hour's codes and gives a guesser no new code to guess. Its message is
 * queued again only if the last was queued at least 60 s ago (otherwise that one stands).
 * With `context`, the code moves to that sign-in (the one it was bound to no longer has it).
 * `browserBound` (`issueEmailCode`): only the context's own code is sent again, and a code goes
 * out in at most `maxSends` messages (then the last stands until the code ends).
 * Undefined when the target has no live code that can be sent again.
 */
export async function resendLiveCode(
  db: Db,
  config: Config,
  target: CodeTarget,
  mail: CodeMail,
  options: { browserBound?: { maxSends: number } } = {},
): Promise<
  | {
      /** The message queued now, claimed here (`mailer.deliverClaimed`); null when the last stands. */
      mailJob: Job | null;
      /** When the last stands: whether it went out, and its job (to try it again). */
      last: { mailSent: boolean; mailJobId: string | null };
      resendAvailableAt: Date;
    }
  | undefined
> {
  return db.transaction().execute(async (trx) => {
    // The same lock as `issueEmailCode`: a code is not re-sent while another replaces it.
    await sql`select pg_advisory_xact_lock(hashtext(${`${target.purpose}:${target.identifier}`}))`.execute(
      trx,
    );
    const live = await trx
      .selectFrom('email_codes')
      .select([
        'id',
        'code_sealed',
        'sent_at',
        'mail_job_id',
        sql<boolean>`${mailWentOut}`.as('mail_sent'),
        sql<boolean>`sent_at + make_interval(secs => ${RESEND_AFTER_SECONDS}) <= now()
          and (${options.browserBound?.maxSends ?? null}::int is null or sends < ${options.browserBound?.maxSends ?? null}::int)`.as(
          'due',
        ),
        sql<Date>`now()`.as('now'),
      ])
      .where('purpose', '=', target.purpose)
      .where('identifier', '=', target.identifier)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .where('code_sealed', 'is not', null)
      .$if(!!options.browserBound, (q) => q.where('context', '=', target.context ?? ''))
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!live) return undefined;
    let job: Job | null = null;
    if (live.due) {
      const carrier = mail.mailer.claimedJob(mail.message(decryptSecret(sealKey(config), live.code_sealed!)));
      const { rows } = await insertClaimedJob(carrier.job, carrier.claim).execute(trx);
      job = rows[0] as Job;
      await mail.queued?.(trx, job);
    }
    await trx
      .updateTable('email_codes')
      .set({
        ...(target.context !== undefined ? { context: target.context } : {}),
        ...(job ? { sent_at: sql<Date>`now()`, mail_job_id: job.id, sends: sql<number>`sends + 1` } : {}),
      })
      .where('id', '=', live.id)
      .execute();
    const sentAt = job ? new Date(live.now) : new Date(live.sent_at);
    return {
      mailJob: job,
      last: { mailSent: live.mail_sent, mailJobId: live.mail_job_id },
      resendAvailableAt: new Date(sentAt.getTime() + RESEND_AFTER_SECONDS * 1000),
    };
  });
}

/** The newest code of a purpose and context, as `findLatestCode` reads it. */
export interface LatestCodeRow {
  identifier: string;
  created_at: Date;
  /** When its message was last queued (a code sent again to a later sign-in: then). */
  sent_at: Date;
  mail_job_id: string | null;
  live: boolean;
  mail_sent: boolean;
}

/** The statement reading `LatestCodeRow`, also a subquery of the code step's (sign-in.repository.ts). */
export const latestCode = (target: { purpose: CodePurpose; context: string }) => sql<LatestCodeRow>`
  select identifier, created_at, sent_at, mail_job_id, consumed_at is null and expires_at > now() as live,
    ${mailWentOut} as mail_sent
  from email_codes
  where purpose = ${target.purpose} and context = ${target.context}
    and created_at > now() - interval '1 hour'
  order by created_at desc limit 1`;

export type LatestCode = ReturnType<typeof toLatestCode>;

export const toLatestCode = (row: LatestCodeRow) => ({
  identifier: row.identifier,
  resendAvailableAt: new Date(new Date(row.sent_at).getTime() + RESEND_AFTER_SECONDS * 1000),
  live: row.live,
  mailSent: row.mail_sent,
  mailJobId: row.mail_job_id,
});

/**
 * The newest code of a purpose and context, used or not: who it went to and when a new one
 * may be sent (a page reloaded in the middle of a sign-in picks up where it was).
 */
export async function findLatestCode(
  db: DbOrTrx,
  target: { purpose: CodePurpose; context: string },
): Promise<LatestCode | undefined> {
  const { rows } = await latestCode(target).execute(db);
  return rows[0] && toLatestCode(rows[0]);
}

/** The code a target may still use: the newest not consumed. */
export interface OpenCode {
  id: string;
  code_hash: string;
  attempts: number;
  expired: boolean;
}

/**
 * The statement reading a target's `OpenCode`; `identifier` may be a column of an enclosing
 * statement (`sql.ref`), as in the code step's (sign-in.repository.ts).
 */
export const openCode = (target: {
  purpose: CodePurpose;
  identifier: string | RawBuilder<unknown>;
  context: string;
}) => sql<OpenCode>`
  select id, code_hash, attempts, expires_at <= now() as expired
  from email_codes
  where purpose = ${target.purpose} and identifier = ${target.identifier}
    and context = ${target.context} and consumed_at is null
  order by created_at desc limit 1`;

/** The field error of a code used meanwhile (or never issued). */
export const codeNoLongerValid = () =>
  fieldError('code', 'This code is no longer valid. Send a new code.', 'code_invalid');

/**
 * Checks and uses up a code. A wrong code costs one of its 5 tries; the fifth kills it.
 * `onWrongCode` runs in the transaction that counts a wrong try (sign-in counts it as a failed
 * sign-in too). Throws a field error on `code` saying what is wrong and what to do. `known`: the
 * open code, when the caller has read it with other things already.
 */
export async function consumeEmailCode(
  db: Db,
  config: Config,
  target: CodeTarget & { code: string },
  onWrongCode?: (trx: DbOrTrx) => Promise<void>,
  known?: { open: OpenCode | undefined },
): Promise<void> {
  const id = await checkEmailCode(db, config, target, onWrongCode, known);
  // Single use, even when two requests carry the right code at once.
  const used = await db
    .updateTable('email_codes')
    .set({ consumed_at: sql`now()`, used_at: sql`now()` })
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (!used) throw codeNoLongerValid();
}

/**
 * `consumeEmailCode` without the using up: returns the right code's id, for a statement that uses
 * it up with its other writes (a completed sign-in's) where `consumed_at` is still null.
 */
export async function checkEmailCode(
  db: Db,
  config: Config,
  target: CodeTarget & { code: string },
  onWrongCode?: (trx: DbOrTrx) => Promise<void>,
  known?: { open: OpenCode | undefined },
): Promise<string> {
  const row = known
    ? known.open
    : (await openCode({ ...target, context: target.context ?? '' }).execute(db)).rows[0];
  if (!row) throw codeNoLongerValid();
  if (row.expired) {
    throw fieldError('code', 'This code has expired. Send a new code.', 'code_expired');
  }
  const expected = Buffer.from(row.code_hash);
  const actual = Buffer.from(hashCode(config, row.id, target.code));
  if (expected.length === actual.length && timingSafeEqual(expected, actual)) return row.id;
  const counted = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('email_codes')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        consumed_at: sql`case when attempts + 1 >= ${CODE_MAX_ATTEMPTS} then now() else consumed_at end`,
      }))
      .where('id', '=', row.id)
      .where('consumed_at', 'is', null)
      .returning('attempts')
      .executeTakeFirst();
    // A wrong guess is a wrong guess even if the code died meanwhile: always reported.
    await onWrongCode?.(trx);
    return updated;
  });
  const left = CODE_MAX_ATTEMPTS - (counted?.attempts ?? CODE_MAX_ATTEMPTS);
  if (left <= 0) {
    throw fieldError(
      'code',
      'Too many wrong codes. This code no longer works: send a new code.',
      'code_dead',
    );
  }
  throw fieldError(
    'code',
    `This code is not correct. ${left} ${left === 1 ? 'try' : 'tries'} left.`,
    'code_incorrect',
  );
}
