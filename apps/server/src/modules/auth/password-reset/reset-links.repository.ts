import { sql } from 'kysely';
import type { DbOrTrx } from '../../../db/database.ts';
import { sha256 } from '../../../lib/crypto.ts';

/** A reset link's row: one per reset message (2026_12_05_0400); only the token's sha256 is stored. */
export async function insertResetLink(
  db: DbOrTrx,
  link: { organizationId: string; userId: string; token: string; minutes: number },
): Promise<void> {
  // The user's links that ended long ago are of no use to anyone: they go as new ones come.
  await db
    .deleteFrom('password_reset_links')
    .where('user_id', '=', link.userId)
    .where('expires_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
  await db
    .insertInto('password_reset_links')
    .values({
      organization_id: link.organizationId,
      user_id: link.userId,
      token_hash: sha256(link.token),
      expires_at: sql<Date>`now() + make_interval(mins => ${link.minutes})`,
    })
    .execute();
}

/**
 * Takes a live link behind a token, once: of two concurrent uses only one gets it (its row is
 * deleted). Found by the token's hash through the unique index, never by comparing tokens.
 */
export async function takeResetLink(db: DbOrTrx, token: string) {
  return db
    .deleteFrom('password_reset_links')
    .where('token_hash', '=', sha256(token))
    .where('expires_at', '>', sql<Date>`now()`)
    .returning(['organization_id', 'user_id'])
    .executeTakeFirst();
}

/** Whether a token is that of a link whose time is over (a used one is gone: it is not). */
export async function isExpiredResetLink(db: DbOrTrx, token: string): Promise<boolean> {
  const row = await db
    .selectFrom('password_reset_links')
    .select('id')
    .where('token_hash', '=', sha256(token))
    .where('expires_at', '<=', sql<Date>`now()`)
    .executeTakeFirst();
  return row !== undefined;
}

/** Every reset link of a user ends: the password was reset or changed, or the access ended. */
export async function deleteResetLinks(db: DbOrTrx, userId: string): Promise<void> {
  await db.deleteFrom('password_reset_links').where('user_id', '=', userId).execute();
}
