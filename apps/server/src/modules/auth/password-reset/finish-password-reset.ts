import { sql } from 'kysely';
import type { Config } from '../../../config.ts';
import type { DbOrTrx } from '../../../db/database.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import { notifyPasswordChanged } from '../../notifications/notify.ts';
import { revokeUserAccess } from '../revoke-user-access.ts';

/**
 * What follows a new password set by "Forgot password", by code or by link, in the transaction
 * that set it: every session, grant, token and reset link of the user ends (revokeUserAccess),
 * the sign-in codes and every browser's reset codes end, the log and the user are told.
 */
export async function finishPasswordReset(
  trx: DbOrTrx,
  deps: { config: Config; mailer: Mailer },
  user: { id: string; organization_id: string; email: string; first_name: string; last_name: string },
  ip: string,
): Promise<void> {
  await revokeUserAccess(trx, user.id);
  // The sign-in codes of the hour go too (issue 30): sign-ins abandoned after the old password
  // no longer count against the hourly cap, and a code sent for one of them dies with it.
  await trx
    .deleteFrom('email_codes')
    .where('purpose', '=', 'sign-in')
    .where('identifier', '=', user.email)
    .execute();
  // Reset codes other browsers asked for end too: none may reset the new password again.
  await trx
    .updateTable('email_codes')
    .set({ consumed_at: sql`now()` })
    .where('purpose', '=', 'password-reset')
    .where('identifier', '=', user.email)
    .where('consumed_at', 'is', null)
    .execute();
  const label = `${user.first_name} ${user.last_name}`.trim();
  await recordActivity(trx, {
    organizationId: user.organization_id,
    actor: { userId: user.id, label },
    action: 'user.password_reset',
    target: { type: 'user', id: user.id, label },
    ip,
  });
  await notifyPasswordChanged(trx, deps, { organizationId: user.organization_id, userId: user.id }, 'reset');
}
