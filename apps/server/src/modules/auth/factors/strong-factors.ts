import { sql, type RawBuilder } from 'kysely';
import type { DbOrTrx } from '../../../db/database.ts';
import type { OwnerKey } from './authenticator/authenticator.repository.ts';

/**
 * The strong sign-in factors (issue 17): a passkey and an authenticator app. What the second step
 * asks for, what "Use another way" offers, and what the organisation's policy can require.
 */
export interface StrongFactors {
  passkey: boolean;
  totp: boolean;
}

/**
 * The factors as the columns `passkey` and `totp` of a statement about one user: `userId` is an id,
 * or a column reference (`sql.ref('u.id')`) when the statement reads the user too.
 */
export const strongFactorColumns = (userId: string | RawBuilder<unknown>) => sql<StrongFactors>`
  exists (select 1 from passkeys where user_id = ${userId}) as passkey,
  exists (select 1 from authenticator_apps where user_id = ${userId} and confirmed_at is not null) as totp`;

/** Which strong factors the user has ready to use, in one statement (asked on every sign-in). */
export async function strongFactorsOf(db: DbOrTrx, userId: string): Promise<StrongFactors> {
  const { rows } = await sql<StrongFactors>`select ${strongFactorColumns(userId)}`.execute(db);
  return rows[0]!;
}

/** The strongest factor first (issue 17 item 4): a passkey, then the authenticator app. */
export function strongestOf(has: StrongFactors): 'passkey' | 'totp' | undefined {
  if (has.passkey) return 'passkey';
  if (has.totp) return 'totp';
  return undefined;
}

/** Whether the user has a confirmed strong factor. */
export async function hasStrongFactor(db: DbOrTrx, userId: string): Promise<boolean> {
  return strongestOf(await strongFactorsOf(db, userId)) !== undefined;
}

/**
 * Everything that lets an account past its second factor, or is one: reset by an admin. Recovery
 * codes stand in for the strong factors, and a trusted browser skips the second factor altogether.
 */
const FACTOR_TABLES = ['passkeys', 'authenticator_apps', 'recovery_codes', 'trusted_browsers'] as const;

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
