import type { DbOrTrx } from '../../db/database.ts';
import { selectAppsForUser } from './apps.repository.ts';

/** An app a user may open (for the apps page and for the user's detail page). */
export interface UserApp {
  id: string;
  title: string;
  templateKey: string;
  launchUrl: string;
  clientId: string;
}

/**
 * Exactly the apps this user may open: apps of their organisation that are open to everyone or
 * shared with one of their groups. A suspended user, or a user of another organisation, gets none;
 * so does an invited user, who cannot sign in yet, unless `includeInvited` (their page in the
 * admin console lists what they will open once they accept the invitation).
 */
export async function listAppsForUser(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
  { includeInvited = false }: { includeInvited?: boolean } = {},
): Promise<UserApp[]> {
  const rows = await selectAppsForUser(db, organizationId, userId, {
    statuses: includeInvited ? ['active', 'invited'] : ['active'],
  });
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    templateKey: row.template_key,
    launchUrl: row.launch_url,
    clientId: row.client_id,
  }));
}
