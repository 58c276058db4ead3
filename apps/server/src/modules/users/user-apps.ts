import type { DbOrTrx } from '../../db/database.ts';
import { listAppsForUser } from '../apps/list-apps-for-user.ts';

/**
 * The apps a user may open, for their page; the apps area decides (groups, suspension). An
 * invited user is shown the apps they will open once they accept the invitation.
 */
export async function listAppsOf(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
): Promise<Array<{ id: string; name: string }>> {
  const apps = await listAppsForUser(db, organizationId, userId, { includeInvited: true });
  return apps.map((app) => ({ id: app.id, name: app.title }));
}
