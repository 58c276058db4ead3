import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { randomToken } from '../../../lib/crypto.ts';
import type { BackgroundWork } from '../../../lib/background-work.ts';
import { AppError, fieldError } from '../../../lib/errors.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { hashPassword, passwordProblem } from '../../../lib/passwords.ts';
import { passwordResetCodeMail } from '../sign-in/codes/auth-mail.ts';
import {
  CODE_TTL_SECONDS,
  consumeEmailCode,
  issueEmailCode,
  RESEND_AFTER_SECONDS,
  resendLiveCode,
  type CodeMail,
} from '../sign-in/codes/email-codes.ts';
import { isKnownDevice } from '../sign-in/known-devices.ts';
import { finishPasswordReset } from './finish-password-reset.ts';
import { insertResetLink } from './reset-links.repository.ts';

interface Deps {
  db: Db;
  config: Config;
  mailer: Mailer;
}

/**
 * Reset codes belong to the browser that asked (issue 38 item 4; docs/sign-in.md, "Limits"): only
 * that browser may enter one, so someone else's requests and wrong tries end only their own codes.
 * Browsers the account has never signed in with share this many codes an hour (5 tries each: 30
 * guesses an hour at most, as before); each browser has `MAX_CODES_PER_HOUR` of its own, and the
 * account's known browsers are never refused for what others asked.
 */
export const RESET_CODES_FOR_UNKNOWN_BROWSERS = 6;
/** Messages one code goes out in (the first and 2 re-sends): what bounds the mail others can cause. */
export const RESET_MAILS_PER_CODE = 3;
/**
 * How long a reset message's link works: its code's 10 minutes and the hour that code then counts
 * against the shared cap. While codes others asked for keep a never-seen browser waiting, every
 * message of those codes reached the owner with a link that still works (docs/sign-in.md).
 */
export const RESET_LINK_MINUTES = CODE_TTL_SECONDS / 60 + 60;

/** The page a reset link opens: "Forgot password" with its token, in any browser. */
export const resetLinkUrl = (config: Config, token: string) =>
  new URL(`/forgot-password?${new URLSearchParams({ token })}`, config.publicUrl).href;

/**
 * Answers at once and the same way whether or not the account exists; the lookup, the code
 * and the e-mail happen after the answer, so neither the reply nor its timing tells. While this
 * browser's last code still lives, that code is sent again (same code, same expiry; once a minute
 * and `RESET_MAILS_PER_CODE` times at most) rather than a new one: asking again never uses up the
 * hour's codes (issue 30), and re-sending gives a guesser nothing new to guess. `browser`: the
 * sha256 of the asking browser's device cookie (the route sets one if it had none).
 */
export function startPasswordReset(
  deps: Deps & { background: BackgroundWork },
  input: { email: string; browser: string },
  log: FastifyBaseLogger,
): { resendAvailableAt: Date } {
  const identifier = input.email.trim().toLowerCase();
  deps.background.start(async () => {
    try {
      const user = await deps.db
        .selectFrom('users as u')
        .innerJoin('organizations as o', 'o.id', 'u.organization_id')
        .select(['u.id', 'u.organization_id', 'o.name as organizationName'])
        .where('u.email', '=', identifier)
        .where('u.status', '=', 'active')
        .executeTakeFirst();
      if (!user) return;
      // Each message carries a link of its own, stored in the transaction that queues the message.
      let token = '';
      const mail: CodeMail = {
        mailer: deps.mailer,
        message: (code) => {
          token = randomToken();
          const link = { url: resetLinkUrl(deps.config, token), minutes: RESET_LINK_MINUTES };
          return passwordResetCodeMail(
            { email: identifier, organizationName: user.organizationName },
            code,
            link,
          );
        },
        queued: (trx) =>
          insertResetLink(trx, {
            organizationId: user.organization_id,
            userId: user.id,
            token,
            minutes: RESET_LINK_MINUTES,
          }),
      };
      const target = { purpose: 'password-reset', identifier, context: input.browser };
      const again = await resendLiveCode(deps.db, deps.config, target, mail, {
        browserBound: { maxSends: RESET_MAILS_PER_CODE },
      });
      if (again) {
        if (again.mailJob) await deps.mailer.deliverClaimed(again.mailJob);
        else if (!again.last.mailSent && again.last.mailJobId)
          await deps.mailer.deliverNow(again.last.mailJobId);
        return;
      }
      // Queued with the code: a mail server that is down delays the message, never drops it.
      const knownDevice = await isKnownDevice(deps.db, identifier, input.browser);
      const { mailJob } = await issueEmailCode(deps.db, deps.config, target, mail, {
        browserBound: { knownDevice, unknownBrowsersCap: RESET_CODES_FOR_UNKNOWN_BROWSERS },
      });
      await deps.mailer.deliverClaimed(mailJob!);
    } catch (error) {
      // Too early or too many re-sends end here too: the caller must not learn the difference.
      if (!(error instanceof AppError)) log.error({ err: error }, 'password reset e-mail failed');
    }
  });
  return { resendAvailableAt: new Date(Date.now() + RESEND_AFTER_SECONDS * 1000) };
}

const resetCodeRefused = () =>
  fieldError(
    'code',
    'This code is not correct or no longer valid. Check it, or send a new code.',
    'code_invalid',
  );

/**
 * Checks the code this browser asked for, sets the password, and revokes every session, grant and
 * token of the user. `browser`: the sha256 of the browser's device cookie, null without one.
 */
export async function completePasswordReset(
  deps: Deps,
  input: { email: string; code: string; password: string; ip: string; browser: string | null },
): Promise<void> {
  const identifier = input.email.trim().toLowerCase();
  const problem = passwordProblem(input.password);
  if (problem) throw fieldError('password', problem);
  // A browser without the cookie asked for no code: refused like any wrong code.
  if (!input.browser) throw resetCodeRefused();
  try {
    await consumeEmailCode(deps.db, deps.config, {
      purpose: 'password-reset',
      identifier,
      context: input.browser,
      code: input.code,
    });
  } catch (error) {
    // Wrong, expired, dead or missing all answer alike: only an account with a pending code can
    // have a wrong, expired or dead one, so telling them apart would reveal which addresses exist.
    if (error instanceof AppError && error.fields?.code) throw resetCodeRefused();
    throw error;
  }
  const passwordHash = await hashPassword(input.password);
  await deps.db.transaction().execute(async (trx) => {
    const user = await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, password_changed_at: sql`now()` })
      .where('email', '=', identifier)
      .where('status', '=', 'active')
      .returning(['id', 'organization_id', 'email', 'first_name', 'last_name'])
      .executeTakeFirst();
    if (!user) throw resetCodeRefused();
    await finishPasswordReset(trx, deps, user, input.ip);
  });
}
