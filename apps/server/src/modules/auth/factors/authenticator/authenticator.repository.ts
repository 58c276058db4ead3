import { sql } from 'kysely';
import type { DbOrTrx } from '../../../../db/database.ts';

/** Authenticator apps and recovery codes of one user (Kysely only; rules are in the callers). */
export interface OwnerKey {
  organizationId: string;
  userId: string;
}

export async function findAuthenticator(db: DbOrTrx, owner: OwnerKey) {
  return db
    .selectFrom('authenticator_apps')
    .select(['id', 'secret_sealed', 'confirmed_at', 'created_at'])
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId)
    .executeTakeFirst();
}

/** A pending (unconfirmed) app with a new secret; an app already confirmed is left alone. */
export async function savePendingAuthenticator(
  db: DbOrTrx,
  owner: OwnerKey,
  secretSealed: string,
): Promise<boolean> {
  const saved = await db
    .insertInto('authenticator_apps')
    .values({ organization_id: owner.organizationId, user_id: owner.userId, secret_sealed: secretSealed })
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet({ secret_sealed: secretSealed, created_at: sql`now()` })
        .where('authenticator_apps.confirmed_at', 'is', null),
    )
    .returning('id')
    .executeTakeFirst();
  return !!saved;
}

/**
 * Records that the code of time step `step` was used, if no code of that step or a later one
 * was: one statement, so two requests with the same code cannot both pass. `confirm` also
 * turns a pending app into a confirmed one.
 */
export async function useTimeStep(
  db: DbOrTrx,
  appId: string,
  step: number,
  options: { confirm?: boolean } = {},
): Promise<boolean> {
  const used = await db
    .updateTable('authenticator_apps')
    .set(options.confirm ? { last_used_step: step, confirmed_at: sql`now()` } : { last_used_step: step })
    .where('id', '=', appId)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .where('confirmed_at', options.confirm ? 'is' : 'is not', null)
    .returning('id')
    .executeTakeFirst();
  return !!used;
}

export async function deleteAuthenticator(db: DbOrTrx, owner: OwnerKey): Promise<boolean> {
  const deleted = await db
    .deleteFrom('authenticator_apps')
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId)
    .returning('id')
    .executeTakeFirst();
  return !!deleted;
}

/** The user's confirmed app, for sign-in (by user id: the organisation is the user's own). */
export async function findConfirmedAuthenticatorOfUser(db: DbOrTrx, userId: string) {
  return db
    .selectFrom('authenticator_apps')
    .select(['id', 'secret_sealed'])
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is not', null)
    .executeTakeFirst();
}

export async function replaceRecoveryCodes(db: DbOrTrx, owner: OwnerKey, hashes: string[]): Promise<void> {
  await deleteRecoveryCodes(db, owner);
  await db
    .insertInto('recovery_codes')
    .values(
      hashes.map((code_hash) => ({
        organization_id: owner.organizationId,
        user_id: owner.userId,
        code_hash,
      })),
    )
    .execute();
}

export async function deleteRecoveryCodes(db: DbOrTrx, owner: OwnerKey): Promise<void> {
  await db
    .deleteFrom('recovery_codes')
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId)
    .execute();
}

export async function countUnusedRecoveryCodes(db: DbOrTrx, owner: OwnerKey): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return row.count;
}

/** Uses up one code; false when it does not exist or was used (also by a concurrent request). */
export async function useRecoveryCode(db: DbOrTrx, userId: string, codeHash: string): Promise<boolean> {
  const used = await db
    .updateTable('recovery_codes')
    .set({ used_at: sql`now()` })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return !!used;
}
