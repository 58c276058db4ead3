import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { AppError, fieldError } from '../../lib/errors.ts';
import type { Mailer } from '../../lib/mail.ts';
import { hashPassword, passwordProblem } from '../../lib/passwords.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { passwordResetCodeMail } from './auth-mail.ts';
import { consumeEmailCode, issueEmailCode, RESEND_AFTER_SECONDS } from './email-codes.ts';
import { revokeUserAccess } from './revoke-user-access.ts';
import { notifyPasswordChanged } from '../notifications/notify.ts';

interface Deps {
  db: Db;
  config: Config;
  mailer: Mailer;
}

/**
 * Answers at once and the same way whether or not the account exists; the lookup, the code
 * and the e-mail happen after the answer, so neither the reply nor its timing tells.
 */
export function startPasswordReset(
  deps: Deps,
  email: string,
  log: FastifyBaseLogger,
): { resendAvailableAt: Date } {
  const identifier = email.trim().toLowerCase();
  void (async () => {
    const user = await deps.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', identifier)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (!user) return;
    // Queued with the code: a mail server that is down delays the message, never drops it.
    const { mailJobId } = await issueEmailCode(
      deps.db,
      deps.config,
      { purpose: 'password-reset', identifier },
      { mailer: deps.mailer, message: (code) => passwordResetCodeMail(identifier, code) },
    );
    await deps.mailer.deliverNow(mailJobId!);
  })().catch((error: unknown) => {
    // Too early or too many re-sends end here too: the caller must not learn the difference.
    if (!(error instanceof AppError)) log.error({ err: error }, 'password reset e-mail failed');
  });
  return { resendAvailableAt: new Date(Date.now() + RESEND_AFTER_SECONDS * 1000) };
}

/** Checks the code, sets the password, and revokes every session, grant and token of the user. */
export async function completePasswordReset(
  deps: Deps,
  input: { email: string; code: string; password: string; ip: string },
): Promise<void> {
  const identifier = input.email.trim().toLowerCase();
  const problem = passwordProblem(input.password);
  if (problem) throw fieldError('password', problem);
  await consumeEmailCode(deps.db, deps.config, { purpose: 'password-reset', identifier, code: input.code });
  const passwordHash = await hashPassword(input.password);
  await deps.db.transaction().execute(async (trx) => {
    const user = await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, password_changed_at: sql`now()` })
      .where('email', '=', identifier)
      .where('status', '=', 'active')
      .returning(['id', 'organization_id', 'first_name', 'last_name'])
      .executeTakeFirst();
    if (!user) throw fieldError('code', 'This code is no longer valid. Send a new code.', 'code_invalid');
    await revokeUserAccess(trx, user.id);
    const label = `${user.first_name} ${user.last_name}`.trim();
    await recordActivity(trx, {
      organizationId: user.organization_id,
      actor: { userId: user.id, label },
      action: 'user.password_reset',
      target: { type: 'user', id: user.id, label },
      ip: input.ip,
    });
    await notifyPasswordChanged(trx, { organizationId: user.organization_id, userId: user.id }, 'reset');
  });
}
