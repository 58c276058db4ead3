import type { DbOrTrx } from '../../db/database.ts';
import { conflict } from '../../lib/errors.ts';

/**
 * Dashboard (the admin group) always keeps a member who can sign in.
 * Locks the Dashboard row first, so two admins removing each other at the same moment are
 * serialised and the second one is refused. Call inside the transaction of the change.
 */
export async function assertDashboardKeepsAnAdmin(
  trx: DbOrTrx,
  organizationId: string,
  leavingUserId: string,
  message: string,
): Promise<void> {
  const dashboard = await trx
    .selectFrom('groups')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('is_system', '=', true)
    .forUpdate()
    .executeTakeFirst();
  if (!dashboard) return;
  const members = await trx
    .selectFrom('group_members as gm')
    .innerJoin('users as u', 'u.id', 'gm.user_id')
    .select(['u.id', 'u.status'])
    .where('gm.group_id', '=', dashboard.id)
    .where('gm.organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('u.id', '=', leavingUserId), eb('u.status', '=', 'active')]))
    .limit(2)
    .execute();
  const isMember = members.some((m) => m.id === leavingUserId);
  const othersActive = members.some((m) => m.id !== leavingUserId);
  if (isMember && !othersActive) throw conflict(message, undefined, 'last_admin');
}
