import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { AppError, fieldError } from '../../../lib/errors.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { hashPassword, passwordProblem } from '../../../lib/passwords.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import { passwordResetCodeMail } from '../sign-in/codes/auth-mail.ts';
import {
  consumeEmailCode,
  issueEmailCode,
  RESEND_AFTER_SECONDS,
  resendLiveCode,
} from '../sign-in/codes/email-codes.ts';
import { revokeUserAccess } from '../revoke-user-access.ts';
import { notifyPasswordChanged } from '../../notifications/notify.ts';

interface Deps {
  db: Db;
  config: Config;
  mailer: Mailer;
}

/**
 * Answers at once and the same way whether or not the account exists; the lookup, the code
 * and the e-mail happen after the answer, so neither the reply nor its timing tells. While the
 * last code still lives, that code is sent again (same code, same expiry; once a minute at most)
 * rather than a new one: asking again never uses up the hour's codes (issue 30), and re-sending
 * gives a guesser nothing new to guess.
 */
export function startPasswordReset(
  deps: Deps,
  email: string,
  log: FastifyBaseLogger,
): { resendAvailableAt: Date } {
  const identifier = email.trim().toLowerCase();
  void (async () => {
    const user = await deps.db
      .selectFrom('users as u')
      .innerJoin('organizations as o', 'o.id', 'u.organization_id')
      .select(['u.id', 'o.name as organizationName'])
      .where('u.email', '=', identifier)
      .where('u.status', '=', 'active')
      .executeTakeFirst();
    if (!user) return;
    const mail = {
      mailer: deps.mailer,
      message: (code: string) =>
        passwordResetCodeMail({ email: identifier, organizationName: user.organizationName }, code),
    };
    const target = { purpose: 'password-reset', identifier };
    const again = await resendLiveCode(deps.db, deps.config, target, mail);
    if (again) {
      if (again.mailJob) await deps.mailer.deliverClaimed(again.mailJob);
      else if (!again.last.mailSent && again.last.mailJobId)
        await deps.mailer.deliverNow(again.last.mailJobId);
      return;
    }
    // Queued with the code: a mail server that is down delays the message, never drops it.
    const { mailJob } = await issueEmailCode(deps.db, deps.config, target, mail);
    await deps.mailer.deliverClaimed(mailJob!);
  })().catch((error: unknown) => {
    // Too early or too many re-sends end here too: the caller must not learn the difference.
    if (!(error instanceof AppError)) log.error({ err: error }, 'password reset e-mail failed');
  });
  return { resendAvailableAt: new Date(Date.now() + RESEND_AFTER_SECONDS * 1000) };
}

const resetCodeRefused = () =>
  fieldError(
    'code',
    'This code is not correct or no longer valid. Check it, or send a new code.',
    'code_invalid',
  );

/** Checks the code, sets the password, and revokes every session, grant and token of the user. */
export async function completePasswordReset(
  deps: Deps,
  input: { email: string; code: string; password: string; ip: string },
): Promise<void> {
  const identifier = input.email.trim().toLowerCase();
  const problem = passwordProblem(input.password);
  if (problem) throw fieldError('password', problem);
  try {
    await consumeEmailCode(deps.db, deps.config, { purpose: 'password-reset', identifier, code: input.code });
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
      .returning(['id', 'organization_id', 'first_name', 'last_name'])
      .executeTakeFirst();
    if (!user) throw resetCodeRefused();
    await revokeUserAccess(trx, user.id);
    // The sign-in codes of the hour go too (issue 30): sign-ins abandoned after the old password
    // no longer count against the hourly cap, and a code sent for one of them dies with it.
    await trx
      .deleteFrom('email_codes')
      .where('purpose', '=', 'sign-in')
      .where('identifier', '=', identifier)
      .execute();
    const label = `${user.first_name} ${user.last_name}`.trim();
    await recordActivity(trx, {
      organizationId: user.organization_id,
      actor: { userId: user.id, label },
      action: 'user.password_reset',
      target: { type: 'user', id: user.id, label },
      ip: input.ip,
    });
    await notifyPasswordChanged(
      trx,
      deps,
      { organizationId: user.organization_id, userId: user.id },
      'reset',
    );
  });
}
