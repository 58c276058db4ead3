import { sql } from 'kysely';
import type { Db, DbOrTrx } from '../../db/database.ts';

/** A user as a device profile names them, with their organisation's name. */
const profileUsers = (db: Db) =>
  db
    .selectFrom('users')
    .innerJoin('organizations', 'organizations.id', 'users.organization_id')
    .select([
      'users.email',
      'users.first_name',
      'users.last_name',
      'organizations.name as organization_name',
    ]);

/** The signed-in user as a device profile names them. */
export function deviceOwnerRow(db: Db, owner: { organizationId: string; userId: string }) {
  return profileUsers(db)
    .where('users.id', '=', owner.userId)
    .where('users.organization_id', '=', owner.organizationId)
    .executeTakeFirstOrThrow();
}

export async function insertProfileLink(
  db: DbOrTrx,
  values: {
    organizationId: string;
    userId: string;
    appPasswordId: string;
    tokenHash: string;
    passwordSealed: string;
    expiresAt: Date;
  },
): Promise<void> {
  await db
    .insertInto('device_profile_links')
    .values({
      organization_id: values.organizationId,
      user_id: values.userId,
      app_password_id: values.appPasswordId,
      token_hash: values.tokenHash,
      password_sealed: values.passwordSealed,
      expires_at: values.expiresAt,
    })
    .execute();
}

/**
 * Takes a link once: deletes it and returns what the profile needs, if it exists, has not expired,
 * and its user is still active. Two downloads at once: one gets the row, the other nothing.
 * Deployment-wide on purpose: the token is the only thing the phone that opens the link holds.
 */
export async function takeProfileLink(db: Db, tokenHash: string) {
  const link = await db
    .deleteFrom('device_profile_links')
    .where('token_hash', '=', tokenHash)
    .returning(['organization_id', 'user_id', 'password_sealed', 'expires_at'])
    .executeTakeFirst();
  if (!link || link.expires_at.getTime() <= Date.now()) return undefined;
  const user = await profileUsers(db)
    .where('users.id', '=', link.user_id)
    .where('users.organization_id', '=', link.organization_id)
    .where('users.status', '=', 'active')
    .executeTakeFirst();
  return user ? { ...user, passwordSealed: link.password_sealed } : undefined;
}

/** Expired links (housekeeping): their passwords are not kept, even sealed, past their time. */
export async function deleteExpiredProfileLinks(db: Db): Promise<void> {
  await db
    .deleteFrom('device_profile_links')
    .where('expires_at', '<=', sql<Date>`now()`)
    .execute();
}
