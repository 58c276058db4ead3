import type { SortDirection, UserSort, UserStatus } from '@atrium/contracts/users';
import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import { prefixPattern } from '../../lib/prefix-pattern.ts';
import type { UserCursor } from './user-cursor.ts';

export interface UserListFilter {
  /** Prefix of the full name ("first last"), the last name or the e-mail address. */
  q?: string | undefined;
  status?: UserStatus | undefined;
  sort: UserSort;
  dir: SortDirection;
}

export interface UserListRow {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  status: UserStatus;
  last_sign_in_at: Date | null;
  created_at: Date;
  /** The sort key as text, for the next cursor (timestamps keep their microseconds). */
  sort_value: string;
  /** The user's groups, the system group first, then by name. */
  groups: Array<{ id: string; name: string; isSystem: boolean }>;
}

/**
 * Each sort's key. They match the indexes of the users migrations column for column, so
 * every sort (with or without a status filter) is an index scan that stops after one page.
 */
function sortKey(sort: UserSort): RawBuilder<unknown> {
  switch (sort) {
    case 'name':
      return sql`u.name_key`;
    case 'email':
      return sql`u.email`;
    case 'created':
      return sql`u.created_at`;
    case 'lastSignIn':
      return sql`coalesce(u.last_sign_in_at, '-infinity'::timestamptz)`;
  }
}

function cursorValue(sort: UserSort, value: string): RawBuilder<unknown> {
  return sort === 'created' || sort === 'lastSignIn' ? sql`${value}::timestamptz` : sql`${value}`;
}

/** One keyset page of an organisation's users (`limit` rows after `cursor`). */
export async function listUsersPage(
  db: DbOrTrx,
  organizationId: string,
  filter: UserListFilter,
  cursor: UserCursor | undefined,
  limit: number,
): Promise<UserListRow[]> {
  const strategy = await searchStrategy(db, organizationId, filter, cursor);
  return (await usersPageQuery(
    db,
    organizationId,
    filter,
    cursor,
    limit,
    strategy,
  ).execute()) as UserListRow[];
}

/** Below this many matches a search collects and sorts them; above, it walks the sort's index. */
const COLLECT_BELOW = 15_000;

/**
 * How to run a search. Few matches (the usual case): collect them through the three prefix
 * indexes and sort them — cost bounded by the matches. Many matches: walk the sort's index and
 * filter, which finds a page after a few hundred rows because dense matches are everywhere.
 * Walking the index for few matches is what must be avoided: when they sit late in the sort
 * order ("sof…" by name) it would read most of the organisation. The planner's own row
 * estimate (EXPLAIN, nothing executed; prefix ranges come from its histograms) decides, which
 * costs a fraction of a millisecond where counting the matches would cost as much as the page.
 */
export async function searchStrategy(
  db: DbOrTrx,
  organizationId: string,
  filter: UserListFilter,
  cursor: UserCursor | undefined,
): Promise<SearchStrategy> {
  if (!filter.q?.trim()) return 'ordered';
  const compiled = filteredUsers(db, organizationId, filter, cursor)
    .select(sql`1`.as('one'))
    .compile();
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': unknown }>(
    CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
  );
  const plan = rows[0]?.['QUERY PLAN'];
  const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as Array<{
    Plan: { 'Plan Rows': number };
  }>;
  const estimate = parsed[0]?.Plan['Plan Rows'] ?? 0;
  return estimate < COLLECT_BELOW ? 'collect' : 'ordered';
}

export type SearchStrategy = 'ordered' | 'collect';

/**
 * How many of the organisation's users match the status and search: an index-only count over
 * (organization_id, …), some milliseconds at 100,000 users, so only the first page asks.
 */
export async function countListedUsers(
  db: DbOrTrx,
  organizationId: string,
  filter: UserListFilter,
): Promise<number> {
  const row = await filteredUsers(db, organizationId, filter, undefined)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The organisation's users matching the status, search and cursor; no columns, no order yet. */
function filteredUsers(
  db: DbOrTrx,
  organizationId: string,
  filter: UserListFilter,
  cursor: UserCursor | undefined,
) {
  const key = sortKey(filter.sort);
  let rows = db.selectFrom('users as u').where('u.organization_id', '=', organizationId);
  if (filter.status) rows = rows.where('u.status', '=', filter.status);
  if (cursor) {
    const after = sql<boolean>`(${key}, u.id) ${sql.raw(filter.dir === 'desc' ? '<' : '>')} (${cursorValue(filter.sort, cursor.value)}, ${cursor.id}::uuid)`;
    rows = rows.where(after);
  }
  const q = filter.q?.trim();
  if (q) {
    const pattern = prefixPattern(q);
    rows = rows.where(
      sql<boolean>`(u.name_key like ${pattern} or lower(u.last_name) like ${pattern} or u.email like ${pattern})`,
    );
  }
  return rows;
}

/**
 * The page query itself, also compiled by the benchmark to EXPLAIN every sort and filter.
 * `ordered` walks the sort's index and stops after one page; `collect` gathers a search's
 * matches first (a MATERIALIZED CTE, so the planner cannot turn it back into an index walk)
 * and sorts only those.
 */
export function usersPageQuery(
  db: DbOrTrx,
  organizationId: string,
  filter: UserListFilter,
  cursor: UserCursor | undefined,
  limit: number,
  strategy: SearchStrategy = 'ordered',
) {
  const key = sortKey(filter.sort);
  const direction = filter.dir === 'desc' ? 'desc' : 'asc';
  const columns = [
    'u.id',
    'u.first_name',
    'u.last_name',
    'u.email',
    'u.status',
    'u.last_sign_in_at',
    'u.created_at',
    'u.name_key',
  ] as const;
  // Each row's groups in the same statement: PostgreSQL evaluates the subquery only for the rows
  // the limit keeps, and the embedded database answers one statement at a time (issue 18).
  const groups = sql<UserListRow['groups']>`(
    select coalesce(json_agg(json_build_object('id', g.id, 'name', g.name, 'isSystem', g.is_system)
      order by g.is_system desc, g.name_key), '[]'::json)
    from group_members gm join groups g on g.id = gm.group_id
    where gm.user_id = u.id and gm.organization_id = ${organizationId}
      and g.organization_id = ${organizationId})`.as('groups');
  const rows = filteredUsers(db, organizationId, filter, cursor).select(columns);
  if (strategy === 'ordered') {
    return rows
      .select([sql<string>`(${key})::text`.as('sort_value'), groups])
      .orderBy(key, direction)
      .orderBy('u.id', direction)
      .limit(limit);
  }
  return db
    .with(
      (cte) => cte('u').materialized(),
      () => rows,
    )
    .selectFrom('u')
    .select([...columns, sql<string>`(${key})::text`.as('sort_value'), groups])
    .orderBy(key, direction)
    .orderBy('u.id', direction)
    .limit(limit);
}

/** The groups of a page of users, in one query (never one per row). */
export async function groupsOfUsers(
  db: DbOrTrx,
  organizationId: string,
  userIds: string[],
): Promise<Map<string, Array<{ id: string; name: string; isSystem: boolean }>>> {
  const byUser = new Map<string, Array<{ id: string; name: string; isSystem: boolean }>>();
  if (userIds.length === 0) return byUser;
  const rows = await db
    .selectFrom('group_members as gm')
    .innerJoin('groups as g', 'g.id', 'gm.group_id')
    .select(['gm.user_id', 'g.id', 'g.name', 'g.is_system'])
    .where('gm.organization_id', '=', organizationId)
    .where('g.organization_id', '=', organizationId)
    .where('gm.user_id', 'in', userIds)
    .orderBy('g.is_system', 'desc')
    .orderBy('g.name_key')
    .execute();
  for (const row of rows) {
    const list = byUser.get(row.user_id) ?? [];
    list.push({ id: row.id, name: row.name, isSystem: row.is_system });
    byUser.set(row.user_id, list);
  }
  return byUser;
}
