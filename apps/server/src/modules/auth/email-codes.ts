import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { deriveKey, randomDigits } from '../../lib/crypto.ts';
import { fieldError, tooManyRequests } from '../../lib/errors.ts';
import type { MailMessage, Mailer } from '../../lib/mail.ts';
import { cancelJobs } from '../jobs/jobs.repository.ts';

/**
 * 6-digit e-mail codes for any purpose (PRODUCT.md §4.1/4.2/4.3): a code lives 10 minutes,
 * dies after 5 wrong tries, and a new one is sent only 60 s after the last (the seed spec's
 * ReSend 60) and re-sent at most 5 times an hour. Only an HMAC of the code is stored.
 */
export const CODE_TTL_SECONDS = 10 * 60;
export const CODE_MAX_ATTEMPTS = 5;
export const RESEND_AFTER_SECONDS = 60;
/**
 * Codes one address gets for one purpose in an hour, whichever sign-ins (or sign-up flows)
 * asked for them: the first and at most 5 re-sends (PRODUCT.md §4.1). Counted per address, not
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

/** Codes whose message was sent (or that predate the queue); SQL over `email_codes`. */
const mailWentOut = sql<boolean>`(email_codes.mail_job_id is null or exists (
  select 1 from jobs where jobs.id = email_codes.mail_job_id and jobs.status = 'done'))`;
/** The codes the hourly cap counts: sent, and not entered right. */
const countsTowardCap = sql<boolean>`(${mailWentOut} and email_codes.used_at is null)`;

/**
 * Issues a new code (the previous one of the same target dies) or refuses with 429 and the
 * time to wait. With `mail`, the message carrying the code is queued in the same transaction
 * (and the dead code's message, if still unsent, is cancelled): call `mailer.deliverNow` with
 * the returned `mailJobId` to try it at once.
 */
export async function issueEmailCode(
  db: Db,
  config: Config,
  target: CodeTarget,
  mail?: { mailer: Mailer; message: (code: string) => MailMessage },
): Promise<{ code: string; resendAvailableAt: Date; mailJobId: string | null }> {
  const context = target.context ?? '';
  return db.transaction().execute(async (trx) => {
    // Two concurrent requests must not both pass the 60-second rule.
    await sql`select pg_advisory_xact_lock(hashtext(${`${target.purpose}:${target.identifier}`}))`.execute(
      trx,
    );
    const sent = await trx
      .selectFrom('email_codes')
      .select([
        sql<number>`(count(*) filter (where ${countsTowardCap}))::int`.as('count'),
        // The 60-second wait is a re-send rule, so per context; the hourly cap below spans them all.
        sql<Date | null>`max(created_at) filter (where context = ${context})`.as('last'),
        sql<Date | null>`min(created_at) filter (where ${countsTowardCap})`.as('first'),
        sql<Date>`now()`.as('now'),
      ])
      .where('purpose', '=', target.purpose)
      .where('identifier', '=', target.identifier)
      .where('created_at', '>', sql<Date>`now() - interval '1 hour'`)
      .executeTakeFirstOrThrow();
    const now = new Date(sent.now);
    if (sent.last) {
      const resendAt = new Date(new Date(sent.last).getTime() + RESEND_AFTER_SECONDS * 1000);
      if (resendAt > now) {
        const wait = Math.ceil((resendAt.getTime() - now.getTime()) / 1000);
        throw tooManyRequests(`You can ask for a new code in ${wait} seconds.`, wait);
      }
    }
    if (sent.count >= MAX_CODES_PER_HOUR && sent.first) {
      // The oldest code of the hour leaves the count first; then one more may be sent.
      const until = new Date(new Date(sent.first).getTime() + 60 * 60 * 1000);
      const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000));
      throw tooManyRequests(
        `Too many codes were sent to this address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        (until.getTime() - now.getTime()) / 1000,
      );
    }
    const killed = await trx
      .updateTable('email_codes')
      .set({ consumed_at: sql`now()` })
      .where('purpose', '=', target.purpose)
      .where('identifier', '=', target.identifier)
      .where('consumed_at', 'is', null)
      .returning('mail_job_id')
      .execute();
    // A dead code's message still waiting for the mail server would only confuse.
    await cancelJobs(
      trx,
      killed.flatMap((k) => (k.mail_job_id ? [k.mail_job_id] : [])),
    );
    const id = randomUUID();
    const code = randomDigits(6);
    const mailJobId = mail ? await mail.mailer.queue(trx, mail.message(code)) : null;
    await trx
      .insertInto('email_codes')
      .values({
        id,
        purpose: target.purpose,
        identifier: target.identifier,
        context,
        code_hash: hashCode(config, id, code),
        mail_job_id: mailJobId,
        expires_at: sql<Date>`now() + make_interval(secs => ${CODE_TTL_SECONDS})`,
      })
      .execute();
    return { code, resendAvailableAt: new Date(now.getTime() + RESEND_AFTER_SECONDS * 1000), mailJobId };
  });
}

/**
 * The newest code of a purpose and context, used or not: who it went to and when a new one
 * may be sent (a page reloaded in the middle of a sign-in picks up where it was).
 */
export async function findLatestCode(
  db: DbOrTrx,
  target: { purpose: CodePurpose; context: string },
): Promise<
  | {
      identifier: string;
      resendAvailableAt: Date;
      live: boolean;
      mailSent: boolean;
      mailJobId: string | null;
    }
  | undefined
> {
  const row = await db
    .selectFrom('email_codes')
    .select([
      'identifier',
      'created_at',
      'mail_job_id',
      sql<boolean>`consumed_at is null and expires_at > now()`.as('live'),
      mailWentOut.as('mail_sent'),
    ])
    .where('purpose', '=', target.purpose)
    .where('context', '=', target.context)
    .where('created_at', '>', sql<Date>`now() - interval '1 hour'`)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    identifier: row.identifier,
    resendAvailableAt: new Date(row.created_at.getTime() + RESEND_AFTER_SECONDS * 1000),
    live: row.live,
    mailSent: row.mail_sent,
    mailJobId: row.mail_job_id,
  };
}

/**
 * Checks and uses up a code. A wrong code costs one of its 5 tries; the fifth kills it.
 * `onWrongCode` runs in the transaction that counts a wrong try (sign-in counts it as a failed
 * sign-in too). Throws a field error on `code` saying what is wrong and what to do.
 */
export async function consumeEmailCode(
  db: Db,
  config: Config,
  target: CodeTarget & { code: string },
  onWrongCode?: (trx: DbOrTrx) => Promise<void>,
): Promise<void> {
  const row = await db
    .selectFrom('email_codes')
    .select(['id', 'code_hash', 'attempts', sql<boolean>`expires_at <= now()`.as('expired')])
    .where('purpose', '=', target.purpose)
    .where('identifier', '=', target.identifier)
    .where('context', '=', target.context ?? '')
    .where('consumed_at', 'is', null)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) {
    throw fieldError('code', 'This code is no longer valid. Send a new code.', 'code_invalid');
  }
  if (row.expired) {
    throw fieldError('code', 'This code has expired. Send a new code.', 'code_expired');
  }
  const expected = Buffer.from(row.code_hash);
  const actual = Buffer.from(hashCode(config, row.id, target.code));
  if (expected.length === actual.length && timingSafeEqual(expected, actual)) {
    // Single use, even when two requests carry the right code at once.
    const used = await db
      .updateTable('email_codes')
      .set({ consumed_at: sql`now()`, used_at: sql`now()` })
      .where('id', '=', row.id)
      .where('consumed_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (used) return;
    throw fieldError('code', 'This code is no longer valid. Send a new code.', 'code_invalid');
  }
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
