import type { DbOrTrx } from '../../db/database.ts';
import type { OwnerKey } from './authenticator.repository.ts';

/**
 * The strong sign-in factors (issue 17): what the organisation's policy can require, and what an
 * admin's reset removes. Passkeys add their table to both lists, one line each.
 */
const STRONG_FACTOR_TABLES = ['authenticator_apps'] as const;

/**
 * Everything that lets an account past its second factor, or is one: reset by an admin. Recovery
 * codes stand in for the app, and a trusted browser skips the second factor altogether.
 */
const FACTOR_TABLES = ['authenticator_apps', 'recovery_codes', 'trusted_browsers'] as const;

/** Whether the user has a confirmed strong factor. */
export async function hasStrongFactor(db: DbOrTrx, userId: string): Promise<boolean> {
  for (const table of STRONG_FACTOR_TABLES) {
    const found = await db
      .selectFrom(table)
      .select('id')
      .where('user_id', '=', userId)
      .where('confirmed_at', 'is not', null)
      .executeTakeFirst();
    if (found) return true;
  }
  return false;
}

/** Removes all of the user's factors; returns how many rows went. */
export async function deleteFactorsOf(db: DbOrTrx, owner: OwnerKey): Promise<number> {
  let removed = 0;
  for (const table of FACTOR_TABLES) {
    const result = await db
      .deleteFrom(table)
      .where('organization_id', '=', owner.organizationId)
      .where('user_id', '=', owner.userId)
      .executeTakeFirst();
    removed += Number(result.numDeletedRows);
  }
  return removed;
}
