import type { Db } from '../../db/database.ts';

/** Who a DAV request signs in as: Radicale's user is `userId` (see dav-auth.service.ts). */
export interface DavUser {
  userId: string;
  organizationId: string;
  email: string;
}

/** The active user with this id; undefined for a suspended, invited or unknown one. */
export async function findActiveDavUser(db: Db, userId: string): Promise<DavUser | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'organization_id', 'email'])
    .where('id', '=', userId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return row && { userId: row.id, organizationId: row.organization_id, email: row.email };
}

/** The active user who owns this app password; undefined once it is revoked or they are not active. */
export async function findAppPasswordOwner(db: Db, appPasswordId: string): Promise<DavUser | undefined> {
  const row = await db
    .selectFrom('app_passwords')
    .select('user_id')
    .where('id', '=', appPasswordId)
    .executeTakeFirst();
  return row && findActiveDavUser(db, row.user_id);
}
