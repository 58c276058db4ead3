import type { Db, DbOrTrx } from '../../../db/database.ts';
import { notFound } from '../../../lib/errors.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import { deleteAppPassword, listAppPasswords } from './app-passwords.repository.ts';
import { appPasswordView } from './app-passwords.service.ts';

/**
 * A user's app passwords on their admin's page (/users/:id, "Devices"): what each device is
 * called, when it was made and last used, and revoking one (a lost phone) without suspending the
 * user or changing their password. Another organisation's user is a 404, as everywhere on /users.
 */
export interface AdminActor {
  organizationId: string;
  userId: string;
  label: string;
  ip: string;
}

/** The user of the admin's organisation, or a 404 like one that does not exist. */
async function findUser(db: DbOrTrx, organizationId: string, userId: string) {
  const user = await db
    .selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name'])
    .where('id', '=', userId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (!user) throw notFound('The user');
  return user;
}

export async function userAppPasswords(db: Db, organizationId: string, userId: string) {
  await findUser(db, organizationId, userId);
  const rows = await listAppPasswords(db, { organizationId, userId });
  return { appPasswords: rows.map(appPasswordView) };
}

/**
 * Revokes one of the user's app passwords and logs it with the admin as actor, in one
 * transaction. The row is gone when this returns: the next IMAP, SMTP or DAV sign-in with it is
 * refused, as after the user's own revoke.
 */
export async function revokeUserAppPassword(
  db: Db,
  actor: AdminActor,
  userId: string,
  appPasswordId: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const user = await findUser(trx, actor.organizationId, userId);
    const deleted = await deleteAppPassword(
      trx,
      { organizationId: actor.organizationId, userId },
      appPasswordId,
    );
    if (!deleted) throw notFound('The app password');
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label: actor.label },
      action: 'user.app_password_revoked',
      target: {
        type: 'user',
        id: userId,
        label: `${user.first_name} ${user.last_name}`.trim() || user.email,
      },
      ip: actor.ip,
      details: { by: 'admin', name: deleted.name },
    });
  });
}
