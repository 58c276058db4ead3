import type { Db } from '../db/database.ts';
import { userMayOpenClient } from '../modules/apps/app-access.ts';
import { clientAccessKey, takeReadAhead, type ClientAccessRow } from './request-prefetch.ts';

export type ClientAccess = { allowed: true } | { allowed: false; appName: string };

/**
 * Whether a user may sign in to a client, asked at authorization time. The console is open to
 * every active user; an app only to users of the organisation that installed it (the apps area
 * adds its group rules here).
 */
export async function checkClientAccess(
  db: Db,
  { userId, clientId }: { userId: string; clientId: string },
): Promise<ClientAccess> {
  // At resume it was read with the interaction (request-prefetch.ts).
  const row =
    takeReadAhead<ClientAccessRow>(clientAccessKey(userId, clientId)) ??
    (await readClientAccess(db, userId, clientId));
  const appName = String((row?.metadata as { client_name?: unknown } | undefined)?.client_name ?? 'this app');
  if (!row || !row.user_organization_id) return { allowed: false, appName };
  if (row.organization_id !== null && row.organization_id !== row.user_organization_id) {
    return { allowed: false, appName };
  }
  // An organisation's client is an installed app: open to everyone, or to members of its groups.
  if (row.organization_id !== null) {
    const mayOpen = await userMayOpenClient(db, {
      userId,
      organizationId: row.organization_id,
      clientId,
      installed: row.app_id !== null,
    });
    if (!mayOpen) return { allowed: false, appName };
  }
  return { allowed: true };
}

/** The client's organisation and name, the user's organisation (if active) and the app row, if any. */
function readClientAccess(db: Db, userId: string, clientId: string): Promise<ClientAccessRow | undefined> {
  return (
    db
      .selectFrom('oidc_clients as c')
      .leftJoin('users as u', (join) => join.on('u.id', '=', userId).on('u.status', '=', 'active'))
      // Whether the client is an installed app, read in the same statement.
      .leftJoin('apps as a', (join) =>
        join.onRef('a.organization_id', '=', 'c.organization_id').onRef('a.client_id', '=', 'c.client_id'),
      )
      .select([
        'c.organization_id',
        'c.metadata',
        'u.organization_id as user_organization_id',
        'a.id as app_id',
      ])
      .where('c.client_id', '=', clientId)
      .executeTakeFirst()
  );
}
