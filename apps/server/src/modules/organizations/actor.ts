import type { DbOrTrx } from '../../db/database.ts';
import type { SessionPrincipal } from '../auth/sessions.repository.ts';

/** The signed-in admin as the activity log names them ("First Last"). */
export async function actorOf(
  db: DbOrTrx,
  principal: Pick<SessionPrincipal, 'userId' | 'organizationId'>,
): Promise<{ userId: string; label: string }> {
  const user = await db
    .selectFrom('users')
    .select(['first_name', 'last_name', 'email'])
    .where('id', '=', principal.userId)
    .where('organization_id', '=', principal.organizationId)
    .executeTakeFirst();
  const label = user ? `${user.first_name} ${user.last_name}`.trim() || user.email : 'Unknown user';
  return { userId: principal.userId, label };
}
