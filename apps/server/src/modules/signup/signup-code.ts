import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { tooManyRequests } from '../../lib/errors.ts';
import {
  CODE_TTL_SECONDS,
  MAX_RESENDS_PER_HOUR,
  RESEND_AFTER_SECONDS,
  consumeEmailCode,
  findLatestCode,
  issueEmailCode,
} from '../auth/email-codes.ts';
import type { SignupDeps } from './signup.service.ts';
import type { SignupFlow } from './signup.repository.ts';

/**
 * Sign-up's use of identity's e-mail codes (same rules as sign-in: 10 minutes, 5 wrong tries,
 * re-send after 60 s, limited per hour). A code is bound to its flow, so a code sent to one tab's
 * flow cannot verify another flow.
 */
const PURPOSE = 'sign-up';

export async function sendSignupCode(deps: SignupDeps, flow: SignupFlow): Promise<void> {
  if (!flow.email) throw new Error('A sign-up code needs an e-mail address');
  await assertHourlyCap(deps.db, flow.email);
  const { code } = await issueEmailCode(deps.db, deps.config, {
    purpose: PURPOSE,
    identifier: flow.email,
    context: flow.id,
  });
  await deps.mailer.send({
    to: flow.email,
    subject: 'Your Atrium verification code',
    text:
      `Your code to confirm this address for ${flow.organizationName ?? 'your organisation'} on Atrium: ${code}\n\n` +
      `It works for 10 minutes. If you did not start a sign-up, ignore this message.\n`,
    html:
      `<p>Your code to confirm this address on Atrium:</p><p style="font-size:24px;letter-spacing:4px"><strong>${code}</strong></p>` +
      `<p>It works for 10 minutes. If you did not start a sign-up, ignore this message.</p>`,
    secretForOutboxLog: code,
  });
}

/**
 * Identity's rules count re-sends per context, and every new sign-up flow is a new context that
 * anyone can open. So that nobody can flood an address with sign-up codes through many flows,
 * sign-up also caps the codes one address gets in an hour, whichever flows asked for them.
 */
const MAX_SIGNUP_CODES_PER_HOUR = 1 + MAX_RESENDS_PER_HOUR;

async function assertHourlyCap(db: Db, email: string): Promise<void> {
  const row = await db
    .selectFrom('email_codes')
    .select([sql<number>`count(*)::int`.as('sent'), sql<Date | null>`min(created_at)`.as('first')])
    .where('purpose', '=', PURPOSE)
    .where('identifier', '=', email)
    .where('created_at', '>', sql<Date>`now() - interval '1 hour'`)
    .executeTakeFirstOrThrow();
  if (row.sent < MAX_SIGNUP_CODES_PER_HOUR || !row.first) return;
  const waitSeconds = (new Date(row.first).getTime() + 60 * 60 * 1000 - Date.now()) / 1000;
  const minutes = Math.max(1, Math.ceil(waitSeconds / 60));
  throw tooManyRequests(
    `Too many codes were sent to this address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    waitSeconds,
  );
}

/** The flow's newest code: when it dies (or died), whether it still works, when another may be sent. */
export async function signupCodeStatus(
  db: Db,
  flow: SignupFlow,
): Promise<{ expiresAt: Date; resendAvailableAt: Date; live: boolean } | null> {
  if (!flow.email) return null;
  const latest = await findLatestCode(db, { purpose: PURPOSE, context: flow.id });
  if (!latest || latest.identifier !== flow.email) return null;
  const sentAt = latest.resendAvailableAt.getTime() - RESEND_AFTER_SECONDS * 1000;
  return {
    expiresAt: new Date(sentAt + CODE_TTL_SECONDS * 1000),
    resendAvailableAt: latest.resendAvailableAt,
    live: latest.live,
  };
}

/** Throws a field error on `code` (wrong, expired, used up) unless the code is right. */
export async function verifySignupCode(deps: SignupDeps, flow: SignupFlow, code: string): Promise<void> {
  if (!flow.email) throw new Error('A sign-up code needs an e-mail address');
  await consumeEmailCode(deps.db, deps.config, {
    purpose: PURPOSE,
    identifier: flow.email,
    context: flow.id,
    code,
  });
}
