import { sql } from 'kysely';
import type { Db, DbOrTrx } from '../../../db/database.ts';

export interface AppPasswordRow {
  id: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

const VIEW = ['id', 'name', 'created_at', 'last_used_at'] as const;

/** A user's app passwords, newest first (a user has a handful, so no paging). */
export function listAppPasswords(db: Db, owner: { organizationId: string; userId: string }) {
  return db
    .selectFrom('app_passwords')
    .select(VIEW)
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(200)
    .execute();
}

/**
 * How many app passwords the user has, with the user's row locked until the transaction ends, so
 * two requests at once cannot both pass the limit.
 */
export async function countAppPasswordsLocked(
  db: DbOrTrx,
  owner: { organizationId: string; userId: string },
) {
  await db
    .selectFrom('users')
    .select('id')
    .where('id', '=', owner.userId)
    .where('organization_id', '=', owner.organizationId)
    .forUpdate()
    .execute();
  const row = await db
    .selectFrom('app_passwords')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId)
    .executeTakeFirstOrThrow();
  return row.count;
}

export function insertAppPassword(
  db: DbOrTrx,
  values: {
    organizationId: string;
    userId: string;
    name: string;
    lookup: string;
    passwordHash: string;
    digest: string;
  },
): Promise<AppPasswordRow> {
  return db
    .insertInto('app_passwords')
    .values({
      organization_id: values.organizationId,
      user_id: values.userId,
      name: values.name,
      lookup: values.lookup,
      password_hash: values.passwordHash,
      digest: values.digest,
    })
    .returning(VIEW)
    .executeTakeFirstOrThrow();
}

/** Deletes one of the user's own app passwords; undefined when it is not theirs (or gone). */
export function deleteAppPassword(
  db: DbOrTrx,
  owner: { organizationId: string; userId: string },
  id: string,
): Promise<{ name: string } | undefined> {
  return db
    .deleteFrom('app_passwords')
    .where('id', '=', id)
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId)
    .returning('name')
    .executeTakeFirst();
}

/** Who an app password signs in: its id and its active owner. */
export interface AppPasswordMatch {
  id: string;
  email: string;
  userId: string;
  organizationId: string;
}

/**
 * The app password with this digest, if its owner is the active user with this address: one
 * indexed read, whatever the answer.
 */
export async function findAppPasswordByDigest(
  db: Db,
  email: string,
  digest: string,
): Promise<AppPasswordMatch | undefined> {
  return db
    .selectFrom('app_passwords')
    .innerJoin('users', 'users.id', 'app_passwords.user_id')
    .select([
      'app_passwords.id',
      'users.email',
      'users.id as userId',
      'users.organization_id as organizationId',
    ])
    .where('app_passwords.digest', '=', digest)
    .where('users.email', '=', email)
    .where('users.status', '=', 'active')
    .executeTakeFirst();
}

/**
 * What an argon2 check compares with: the active user with this address and their app passwords
 * that start with `lookup` and have no digest yet (made before 2026_12_05_0100): those with one
 * are found by it, and a password that missed its digest would miss its hash too.
 */
export function appPasswordCandidates(db: Db, email: string, lookup: string) {
  return db
    .selectFrom('users')
    .innerJoin('app_passwords', 'app_passwords.user_id', 'users.id')
    .select([
      'app_passwords.id',
      'app_passwords.password_hash',
      'users.email',
      'users.id as userId',
      'users.organization_id as organizationId',
    ])
    .where('users.email', '=', email)
    .where('users.status', '=', 'active')
    .where('app_passwords.lookup', '=', lookup)
    .where('app_passwords.digest', 'is', null)
    .execute();
}

/** Fills the digest of an older app password its owner just signed in with. */
export async function setAppPasswordDigest(db: Db, id: string, digest: string): Promise<void> {
  await db.updateTable('app_passwords').set({ digest }).where('id', '=', id).execute();
}

/**
 * Notes the use, at most once in five minutes: a calendar sync sends the password with each of
 * its many requests, and a write for each would be a write per request.
 */
export async function markAppPasswordUsed(db: Db, id: string): Promise<void> {
  await db
    .updateTable('app_passwords')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('last_used_at', 'is', null),
        eb('last_used_at', '<', sql<Date>`now() - interval '5 minutes'`),
      ]),
    )
    .execute();
}
