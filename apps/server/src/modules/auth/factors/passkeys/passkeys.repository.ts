import { sql } from 'kysely';
import type { DbOrTrx } from '../../../../db/database.ts';
import type { ChallengePurpose } from '../../../../db/passkey-tables.ts';
import type { OwnerKey } from '../authenticator/authenticator.repository.ts';

/** Passkeys and WebAuthn challenges (Kysely only; rules are in the callers). */

/** How long a challenge may be answered: the browser's own timeout is one minute. */
export const CHALLENGE_TTL_SECONDS = 5 * 60;

export const passkeyColumns = [
  'id',
  'user_id',
  'credential_id',
  'public_key',
  'counter',
  'transports',
  'backup_eligible',
  'backed_up',
  'name',
  'created_at',
  'last_used_at',
] as const;

export async function listPasskeys(db: DbOrTrx, owner: OwnerKey) {
  return db
    .selectFrom('passkeys')
    .select(passkeyColumns)
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId)
    .orderBy('created_at')
    .execute();
}

/** The passkeys a user may sign in with, by user id (the organisation is the user's own). */
export async function passkeysOfUser(db: DbOrTrx, userId: string) {
  return db.selectFrom('passkeys').select(passkeyColumns).where('user_id', '=', userId).execute();
}

export async function findPasskeyByCredential(db: DbOrTrx, credentialId: string) {
  return db
    .selectFrom('passkeys')
    .select(passkeyColumns)
    .where('credential_id', '=', credentialId)
    .executeTakeFirst();
}

export async function insertPasskey(
  db: DbOrTrx,
  owner: OwnerKey,
  passkey: {
    credentialId: string;
    publicKey: string;
    counter: number;
    transports: string[];
    backupEligible: boolean;
    backedUp: boolean;
    name: string;
  },
): Promise<void> {
  await db
    .insertInto('passkeys')
    .values({
      organization_id: owner.organizationId,
      user_id: owner.userId,
      credential_id: passkey.credentialId,
      public_key: passkey.publicKey,
      counter: passkey.counter,
      transports: passkey.transports.join(','),
      backup_eligible: passkey.backupEligible,
      backed_up: passkey.backedUp,
      name: passkey.name,
    })
    .execute();
}

/**
 * Records a use and its new signature counter, if the counter moved on from the one read (or
 * stays 0, for authenticators that keep none): one statement, so a cloned key racing the real
 * one cannot both pass with the same counter.
 */
export async function usePasskey(
  db: DbOrTrx,
  id: string,
  previous: number,
  next: number,
  backedUp: boolean,
): Promise<boolean> {
  const used = await db
    .updateTable('passkeys')
    .set({ counter: next, backed_up: backedUp, last_used_at: sql`now()` })
    .where('id', '=', id)
    .where('counter', '=', previous)
    .returning('id')
    .executeTakeFirst();
  return !!used;
}

export async function deletePasskey(db: DbOrTrx, owner: OwnerKey, id: string) {
  return db
    .deleteFrom('passkeys')
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId)
    .where('id', '=', id)
    .returning('name')
    .executeTakeFirst();
}

export async function countPasskeys(db: DbOrTrx, userId: string): Promise<number> {
  const row = await db
    .selectFrom('passkeys')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.count;
}

export async function saveChallenge(
  db: DbOrTrx,
  input: { challenge: string; purpose: ChallengePurpose; context: string; userId?: string },
): Promise<void> {
  // Challenges nobody answered go when the next one is made.
  await db
    .deleteFrom('webauthn_challenges')
    .where('expires_at', '<', sql<Date>`now()`)
    .execute();
  await db
    .insertInto('webauthn_challenges')
    .values({
      challenge: input.challenge,
      purpose: input.purpose,
      context: input.context,
      user_id: input.userId ?? null,
      expires_at: sql<Date>`now() + make_interval(secs => ${CHALLENGE_TTL_SECONDS})`,
    })
    .execute();
}

/**
 * Uses up a challenge this server issued for this purpose and context: deleted as it is read,
 * so an answer cannot be replayed. Undefined when it was never issued here, used or expired.
 */
export async function consumeChallenge(
  db: DbOrTrx,
  input: { challenge: string; purpose: ChallengePurpose; context: string },
) {
  return db
    .deleteFrom('webauthn_challenges')
    .where('challenge', '=', input.challenge)
    .where('purpose', '=', input.purpose)
    .where('context', '=', input.context)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning(['challenge', 'user_id'])
    .executeTakeFirst();
}
