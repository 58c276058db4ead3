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
  values: { organizationId: string; userId: string; name: string; lookup: string; passwordHash: string },
): Promise<AppPasswordRow> {
  return db
    .insertInto('app_passwords')
    .values({
      organization_id: values.organizationId,
      user_id: values.userId,
      name: values.name,
      lookup: values.lookup,
      password_hash: values.passwordHash,
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

/**
 * What a mail sign-in checks: the active user with this address and their app passwords that
 * start with `lookup` (one query; usually one row, none for an unknown or suspended user).
 */
export function appPasswordCandidates(db: Db, email: string, lookup: string) {
  return db
    .selectFrom('users')
    .innerJoin('app_passwords', 'app_passwords.user_id', 'users.id')
    .select(['app_passwords.id', 'app_passwords.password_hash', 'users.email'])
    .where('users.email', '=', email)
    .where('users.status', '=', 'active')
    .where('app_passwords.lookup', '=', lookup)
    .execute();
}

export async function markAppPasswordUsed(db: Db, id: string): Promise<void> {
  await db
    .updateTable('app_passwords')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}
