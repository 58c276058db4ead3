import type { Db } from '../../db/database.ts';

/** Who a DAV request signs in as: Radicale's user is `userId` (see dav-auth.service.ts). */
export interface DavUser {
  userId: string;
  organizationId: string;
  email: string;
}

/** The active user with this id or address; undefined for a suspended, invited or unknown one. */
export async function findActiveDavUser(
  db: Db,
  by: { id: string } | { email: string },
): Promise<DavUser | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'organization_id', 'email'])
    .where('status', '=', 'active')
    .$if('id' in by, (q) => q.where('id', '=', (by as { id: string }).id))
    .$if('email' in by, (q) => q.where('email', '=', (by as { email: string }).email))
    .executeTakeFirst();
  return row && { userId: row.id, organizationId: row.organization_id, email: row.email };
}
