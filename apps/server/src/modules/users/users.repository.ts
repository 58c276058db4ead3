import type { UserStatus } from '@atrium/contracts/users';
import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';

/** The columns of a UserRow. */
const userColumns = [
  'id',
  'organization_id',
  'first_name',
  'last_name',
  'email',
  'status',
  'password_hash',
  'last_sign_in_at',
  'created_at',
  'password_changed_at',
  'personal_email',
] as const;

export interface UserRow {
  id: string;
  organization_id: string;
  first_name: string;
  last_name: string;
  email: string;
  status: UserStatus;
  password_hash: string | null;
  last_sign_in_at: Date | null;
  created_at: Date;
  password_changed_at: Date | null;
  personal_email: string | null;
}

/** A user of this organisation; another organisation's user is simply not found. */
export async function findUser(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .select(userColumns)
    .where('organization_id', '=', organizationId)
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** Locks the user's row for the rest of the transaction (status changes, deletion). */
export async function lockUser(db: DbOrTrx, organizationId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether an address is taken anywhere in the deployment (it is the sign-in identifier).
 * Deliberately not scoped: the caller only learns "in use", never by which organisation.
 */
export async function emailInUse(db: DbOrTrx, email: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  return row !== undefined;
}

export const nameKey = (firstName: string, lastName: string) => `${firstName} ${lastName}`.toLowerCase();

export async function insertUser(
  db: DbOrTrx,
  organizationId: string,
  user: {
    firstName: string;
    lastName: string;
    email: string;
    passwordHash: string | null;
    status: UserStatus;
    personalEmail?: string | null;
  },
): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({
      organization_id: organizationId,
      email: user.email,
      first_name: user.firstName,
      last_name: user.lastName,
      name_key: nameKey(user.firstName, user.lastName),
      password_hash: user.passwordHash,
      status: user.status,
      password_changed_at: user.passwordHash ? sql<Date>`now()` : null,
      personal_email: user.personalEmail ?? null,
    })
    .returning(userColumns)
    .executeTakeFirstOrThrow();
}

export async function updateUserNames(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
  names: { firstName: string; lastName: string; personalEmail?: string | null },
): Promise<void> {
  await db
    .updateTable('users')
    .set({
      first_name: names.firstName,
      last_name: names.lastName,
      name_key: nameKey(names.firstName, names.lastName),
      ...(names.personalEmail !== undefined ? { personal_email: names.personalEmail } : {}),
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', userId)
    .execute();
}

export async function setUserStatus(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
  status: UserStatus,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ status })
    .where('organization_id', '=', organizationId)
    .where('id', '=', userId)
    .execute();
}

/** A new password; an invited user becomes active (they can now sign in). */
export async function setUserPassword(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
  passwordHash: string,
): Promise<void> {
  await db
    .updateTable('users')
    .set({
      password_hash: passwordHash,
      password_changed_at: sql<Date>`now()`,
      status: sql<UserStatus>`case when status = 'invited' then 'active' else status end`,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', userId)
    .execute();
}

export async function deleteUser(db: DbOrTrx, organizationId: string, userId: string): Promise<void> {
  await db
    .deleteFrom('users')
    .where('organization_id', '=', organizationId)
    .where('id', '=', userId)
    .execute();
}

export async function listUserSessions(db: DbOrTrx, organizationId: string, userId: string) {
  return db
    .selectFrom('console_sessions')
    .select(['id', 'created_at', 'last_seen_at', 'expires_at', 'user_agent', 'ip'])
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('last_seen_at', 'desc')
    .limit(100)
    .execute();
}

export async function actorLabel(db: DbOrTrx, organizationId: string, userId: string): Promise<string> {
  const row = await findUser(db, organizationId, userId);
  return row ? `${row.first_name} ${row.last_name}` : 'An administrator';
}

/** The personal addresses of a page of users (the export's column), in one query by primary key. */
export async function personalEmailsOf(
  db: DbOrTrx,
  organizationId: string,
  userIds: string[],
): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'personal_email'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', userIds)
    .where('personal_email', 'is not', null)
    .execute();
  return new Map(rows.map((row) => [row.id, row.personal_email!]));
}
