import type { DbOrTrx } from '../../db/database.ts';
import { findConfirmedAuthenticatorOfUser, type OwnerKey } from './authenticator.repository.ts';

/**
 * The strong sign-in factors (issue 17): what the organisation's policy can require. Each says
 * whether the user has one ready to use; passkeys add theirs here, one line.
 */
const STRONG_FACTORS: ((db: DbOrTrx, userId: string) => Promise<boolean>)[] = [
  async (db, userId) => !!(await findConfirmedAuthenticatorOfUser(db, userId)),
];

/**
 * Everything that lets an account past its second factor, or is one: reset by an admin. Recovery
 * codes stand in for the app, and a trusted browser skips the second factor altogether. Passkeys
 * add their table here (it needs `organization_id` and `user_id`, as these have).
 */
const FACTOR_TABLES = ['authenticator_apps', 'recovery_codes', 'trusted_browsers'] as const;

/** Whether the user has a confirmed strong factor. */
export async function hasStrongFactor(db: DbOrTrx, userId: string): Promise<boolean> {
  for (const has of STRONG_FACTORS) if (await has(db, userId)) return true;
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
