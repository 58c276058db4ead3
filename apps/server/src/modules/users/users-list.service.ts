import { USERS_PAGE_SIZE, type UserSummary, type UsersPage } from '@atrium/contracts/users';
import type { DbOrTrx } from '../../db/database.ts';
import { decodeCursor, encodeCursor } from './user-cursor.ts';
import {
  countListedUsers,
  listUsersPage,
  type UserListFilter,
  type UserListRow,
} from './users-list.repository.ts';

export function toSummary(
  row: Omit<UserListRow, 'sort_value' | 'groups'>,
  groups: UserSummary['groups'],
): UserSummary {
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    name: `${row.first_name} ${row.last_name}`,
    email: row.email,
    status: row.status,
    groups,
    lastSignInAt: row.last_sign_in_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * One page of the users list: the page's rows with their groups, in one statement whatever the
 * size (one more row than shown tells whether a next page exists).
 */
export async function listUsers(
  db: DbOrTrx,
  organizationId: string,
  filter: UserListFilter,
  rawCursor: string | undefined,
  pageSize = USERS_PAGE_SIZE,
): Promise<UsersPage> {
  const cursor = rawCursor ? decodeCursor(rawCursor, filter.sort, filter.dir) : undefined;
  const [rows, total] = await Promise.all([
    listUsersPage(db, organizationId, filter, cursor, pageSize + 1),
    rawCursor ? null : countListedUsers(db, organizationId, filter),
  ]);
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return {
    users: page.map((row) => toSummary(row, row.groups)),
    nextCursor:
      rows.length > pageSize && last
        ? encodeCursor({ sort: filter.sort, dir: filter.dir, value: last.sort_value, id: last.id })
        : null,
    total,
  };
}
