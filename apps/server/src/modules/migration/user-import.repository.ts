import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import type { ImportRowOutcome } from '../../db/user-import-tables.ts';
import { nameKey } from '../users/users.repository.ts';

/** The queries of the CSV user import: every one works on a whole batch of rows at once. */

export interface ExistingUser {
  id: string;
  organization_id: string;
  email: string;
  first_name: string;
  last_name: string;
}

/** The users holding any of these addresses, in any organisation (addresses are deployment-wide). */
export async function usersByEmail(db: DbOrTrx, emails: string[]): Promise<ExistingUser[]> {
  if (emails.length === 0) return [];
  return db
    .selectFrom('users')
    .select(['id', 'organization_id', 'email', 'first_name', 'last_name'])
    .where('email', 'in', emails)
    .execute();
}

/** Each user's group ids. */
export async function groupIdsOfUsers(
  db: DbOrTrx,
  organizationId: string,
  userIds: string[],
): Promise<Map<string, Set<string>>> {
  const result = new Map<string, Set<string>>();
  if (userIds.length === 0) return result;
  const rows = await db
    .selectFrom('group_members')
    .select(['user_id', 'group_id'])
    .where('organization_id', '=', organizationId)
    .where('user_id', 'in', userIds)
    .execute();
  for (const row of rows) {
    let set = result.get(row.user_id);
    if (!set) result.set(row.user_id, (set = new Set()));
    set.add(row.group_id);
  }
  return result;
}

/** The organisation's groups by lowercased name. */
export async function groupsByKey(
  db: DbOrTrx,
  organizationId: string,
): Promise<Map<string, { id: string; name: string }>> {
  const rows = await db
    .selectFrom('groups')
    .select(['id', 'name', 'name_key'])
    .where('organization_id', '=', organizationId)
    .execute();
  return new Map(rows.map((g) => [g.name_key, { id: g.id, name: g.name }]));
}

/**
 * Creates the groups that do not exist yet (names unique per organisation ignoring case; another
 * request creating one at the same moment is no error) and returns the ids of all of them.
 */
export async function ensureGroups(
  db: DbOrTrx,
  organizationId: string,
  names: string[],
): Promise<Map<string, string>> {
  const byKey = new Map(names.map((n) => [n.toLowerCase(), n]));
  if (byKey.size === 0) return new Map();
  await db
    .insertInto('groups')
    .values([...byKey].map(([key, name]) => ({ organization_id: organizationId, name, name_key: key })))
    .onConflict((oc) => oc.columns(['organization_id', 'name_key']).doNothing())
    .execute();
  const rows = await db
    .selectFrom('groups')
    .select(['id', 'name_key'])
    .where('organization_id', '=', organizationId)
    .where('name_key', 'in', [...byKey.keys()])
    .execute();
  return new Map(rows.map((g) => [g.name_key, g.id]));
}

export async function insertUsers(
  db: DbOrTrx,
  organizationId: string,
  users: Array<{
    email: string;
    firstName: string;
    lastName: string;
    passwordHash: string | null;
    personalEmail: string | null;
  }>,
): Promise<Map<string, string>> {
  if (users.length === 0) return new Map();
  const rows = await db
    .insertInto('users')
    .values(
      users.map((u) => ({
        organization_id: organizationId,
        email: u.email,
        first_name: u.firstName,
        last_name: u.lastName,
        name_key: nameKey(u.firstName, u.lastName),
        password_hash: u.passwordHash,
        status: u.passwordHash ? ('active' as const) : ('invited' as const),
        password_changed_at: u.passwordHash ? sql<Date>`now()` : null,
        personal_email: u.personalEmail,
      })),
    )
    .returning(['id', 'email'])
    .execute();
  return new Map(rows.map((r) => [r.email, r.id]));
}

export async function updateNames(
  db: DbOrTrx,
  organizationId: string,
  updates: Array<{ id: string; firstName: string; lastName: string }>,
): Promise<void> {
  if (updates.length === 0) return;
  const values = sql.join(
    updates.map(
      (u) => sql`(${u.id}::uuid, ${u.firstName}, ${u.lastName}, ${nameKey(u.firstName, u.lastName)})`,
    ),
  );
  await sql`
    update users set first_name = v.first_name, last_name = v.last_name, name_key = v.name_key
    from (values ${values}) as v(id, first_name, last_name, name_key)
    where users.id = v.id and users.organization_id = ${organizationId}`.execute(db);
}

export async function addMemberships(
  db: DbOrTrx,
  organizationId: string,
  pairs: Array<{ userId: string; groupId: string }>,
): Promise<void> {
  if (pairs.length === 0) return;
  await db
    .insertInto('group_members')
    .values(pairs.map((p) => ({ group_id: p.groupId, user_id: p.userId, organization_id: organizationId })))
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .execute();
}

// ---- the import and its rows ----

export interface StagedRow {
  row_number: number;
  email: string;
  first_name: string;
  last_name: string;
  groups: string[];
  password_enc: string | null;
  invite: boolean;
  personal_email: string | null;
  outcome: ImportRowOutcome | null;
  message: string | null;
}

export async function insertImportRows(db: DbOrTrx, importId: string, rows: StagedRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('user_import_rows')
    .values(rows.map((r) => ({ ...r, import_id: importId, groups: JSON.stringify(r.groups) })))
    .execute();
}

/** The next rows after the last committed batch, in file order. */
export async function nextRows(
  db: DbOrTrx,
  importId: string,
  afterRow: number,
  limit: number,
): Promise<StagedRow[]> {
  const rows = await db
    .selectFrom('user_import_rows')
    .select([
      'row_number',
      'email',
      'first_name',
      'last_name',
      'groups',
      'password_enc',
      'invite',
      'personal_email',
      'outcome',
      'message',
    ])
    .where('import_id', '=', importId)
    .where('row_number', '>', afterRow)
    .orderBy('row_number')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, groups: r.groups as string[] }));
}

/** Each row's outcome; a row's sealed password goes once it is imported. */
export async function recordOutcomes(
  db: DbOrTrx,
  importId: string,
  outcomes: Array<{ row: number; outcome: ImportRowOutcome; message: string | null }>,
): Promise<void> {
  if (outcomes.length === 0) return;
  const values = sql.join(outcomes.map((o) => sql`(${o.row}::int, ${o.outcome}, ${o.message}::text)`));
  await sql`
    update user_import_rows set outcome = v.outcome, message = v.message, password_enc = null
    from (values ${values}) as v(row_number, outcome, message)
    where user_import_rows.import_id = ${importId} and user_import_rows.row_number = v.row_number`.execute(
    db,
  );
}

/**
 * When an import stops early (cancelled, failed): its error count takes in the rows not reached
 * whose error was known at upload (a malformed address, say), which the result file lists as
 * errors too. One statement, from the cursor the row holds then.
 */
export async function countErrorsNotReached(db: DbOrTrx, importId: string): Promise<void> {
  await sql`
    update user_imports set error_count = error_count + (
      select count(*)::int from user_import_rows r
      where r.import_id = user_imports.id and r.row_number > user_imports.cursor_row and r.outcome = 'error'
    )
    where id = ${importId}`.execute(db);
}

export async function erasePasswords(db: DbOrTrx, importId: string): Promise<void> {
  await db
    .updateTable('user_import_rows')
    .set({ password_enc: null })
    .where('import_id', '=', importId)
    .where('password_enc', 'is not', null)
    .execute();
}

/** An import, once its upload has finished (it has a job): one still being uploaded is no import yet. */
export async function findImport(db: DbOrTrx, organizationId: string, importId: string) {
  return db
    .selectFrom('user_imports')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', importId)
    .where('job_id', 'is not', null)
    .executeTakeFirst();
}

/** An upload that failed (a bad file, say): the import and its staged rows. */
export async function deleteUpload(db: DbOrTrx, importId: string): Promise<void> {
  await db.deleteFrom('user_imports').where('id', '=', importId).where('job_id', 'is', null).execute();
}

/** Uploads left unfinished by a process that stopped in the middle of one, a day on. */
export async function deleteAbandonedUploads(db: DbOrTrx): Promise<void> {
  await db
    .deleteFrom('user_imports')
    .where('job_id', 'is', null)
    .where('created_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
}

export async function lockImport(db: DbOrTrx, importId: string) {
  return db.selectFrom('user_imports').selectAll().where('id', '=', importId).forUpdate().executeTakeFirst();
}

export async function listImports(db: DbOrTrx, organizationId: string, limit: number) {
  return db
    .selectFrom('user_imports')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('job_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

/** Rows of the result file, a keyset page at a time. */
export async function resultRows(db: DbOrTrx, importId: string, afterRow: number, limit: number) {
  return db
    .selectFrom('user_import_rows')
    .select(['row_number', 'email', 'first_name', 'last_name', 'outcome', 'message'])
    .where('import_id', '=', importId)
    .where('row_number', '>', afterRow)
    .orderBy('row_number')
    .limit(limit)
    .execute();
}
