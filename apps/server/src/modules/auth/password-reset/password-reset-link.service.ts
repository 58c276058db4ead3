import { sql } from 'kysely';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { AppError, fieldError } from '../../../lib/errors.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { hashPassword, passwordProblem } from '../../../lib/passwords.ts';
import { finishPasswordReset } from './finish-password-reset.ts';
import { isExpiredResetLink, takeResetLink } from './reset-links.repository.ts';

// A used link is gone, so it is refused as a made-up one: the answer tells nothing more.
const linkRefused = () =>
  new AppError(
    400,
    'reset_link_invalid',
    'This reset link does not work: it was already used, or it is not the whole link from the e-mail. Ask for a new code below.',
  );
const linkExpired = () =>
  new AppError(400, 'reset_link_expired', 'This reset link has expired. Ask for a new code below.');

/**
 * Sets a new password with the link of a reset message (issue 38 item 4), from any browser: the
 * token is 256 random bits, so there is nothing to guess and no try counter, only the route's
 * per-address limit. The link works once; the reset ends every other link and code of the user.
 */
export async function completePasswordResetByLink(
  deps: { db: Db; config: Config; mailer: Mailer },
  input: { token: string; password: string; ip: string },
): Promise<void> {
  const problem = passwordProblem(input.password);
  if (problem) throw fieldError('password', problem);
  const passwordHash = await hashPassword(input.password);
  await deps.db.transaction().execute(async (trx) => {
    // Of two tabs sending the same link at once, only one takes it.
    const link = await takeResetLink(trx, input.token);
    if (!link) throw (await isExpiredResetLink(trx, input.token)) ? linkExpired() : linkRefused();
    const user = await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, password_changed_at: sql`now()` })
      .where('organization_id', '=', link.organization_id)
      .where('id', '=', link.user_id)
      .where('status', '=', 'active')
      .returning(['id', 'organization_id', 'email', 'first_name', 'last_name'])
      .executeTakeFirst();
    if (!user) throw linkRefused();
    await finishPasswordReset(trx, deps, user, input.ip);
  });
}
