import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';

export interface GroupRow {
  id: string;
  name: string;
  is_system: boolean;
  created_at: Date;
  member_count: number;
}

/** Every group of the organisation with its member count, by name (Dashboard first). */
export async function listGroups(db: DbOrTrx, organizationId: string): Promise<GroupRow[]> {
  return db
    .selectFrom('groups as g')
    .leftJoin('group_members as gm', 'gm.group_id', 'g.id')
    .select([
      'g.id',
      'g.name',
      'g.is_system',
      'g.created_at',
      sql<number>`count(gm.user_id)::int`.as('member_count'),
    ])
    .where('g.organization_id', '=', organizationId)
    .groupBy('g.id')
    .orderBy('g.is_system', 'desc')
    .orderBy('g.name_key')
    .execute();
}

export async function findGroup(
  db: DbOrTrx,
  organizationId: string,
  groupId: string,
  options: { lock?: boolean } = {},
): Promise<GroupRow | undefined> {
  let query = db
    .selectFrom('groups as g')
    .select([
      'g.id',
      'g.name',
      'g.is_system',
      'g.created_at',
      sql<number>`(select count(*) from group_members gm where gm.group_id = g.id)::int`.as('member_count'),
    ])
    .where('g.organization_id', '=', organizationId)
    .where('g.id', '=', groupId);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The groups among `groupIds` that belong to this organisation. */
export async function groupsByIds(db: DbOrTrx, organizationId: string, groupIds: string[]) {
  if (groupIds.length === 0) return [];
  return db
    .selectFrom('groups')
    .select(['id', 'name', 'is_system'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', groupIds)
    .orderBy('is_system', 'desc')
    .orderBy('name_key')
    .execute();
}

/** Puts one user into several groups in one statement. */
export async function addUserToGroups(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
  groupIds: string[],
): Promise<void> {
  if (groupIds.length === 0) return;
  await db
    .insertInto('group_members')
    .values(
      groupIds.map((groupId) => ({ group_id: groupId, user_id: userId, organization_id: organizationId })),
    )
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .execute();
}

export async function groupNameTaken(
  db: DbOrTrx,
  organizationId: string,
  nameKey: string,
  exceptGroupId?: string,
): Promise<boolean> {
  let query = db
    .selectFrom('groups')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('name_key', '=', nameKey);
  if (exceptGroupId) query = query.where('id', '!=', exceptGroupId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function insertGroup(db: DbOrTrx, organizationId: string, name: string): Promise<GroupRow> {
  const row = await db
    .insertInto('groups')
    .values({ organization_id: organizationId, name, name_key: name.toLowerCase() })
    .returning(['id', 'name', 'is_system', 'created_at'])
    .executeTakeFirstOrThrow();
  return { ...row, member_count: 0 };
}

export async function renameGroup(
  db: DbOrTrx,
  organizationId: string,
  groupId: string,
  name: string,
): Promise<void> {
  await db
    .updateTable('groups')
    .set({ name, name_key: name.toLowerCase() })
    .where('organization_id', '=', organizationId)
    .where('id', '=', groupId)
    .execute();
}

export async function deleteGroup(db: DbOrTrx, organizationId: string, groupId: string): Promise<void> {
  await db
    .deleteFrom('groups')
    .where('organization_id', '=', organizationId)
    .where('id', '=', groupId)
    .execute();
}

/** Adds users to a group; existing memberships are left as they are. Returns the ids newly added. */
export async function addMembers(
  db: DbOrTrx,
  organizationId: string,
  groupId: string,
  userIds: string[],
): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .insertInto('group_members')
    .values(
      userIds.map((userId) => ({ group_id: groupId, user_id: userId, organization_id: organizationId })),
    )
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .returning('user_id')
    .execute();
  return rows.map((r) => r.user_id);
}

export async function removeMember(
  db: DbOrTrx,
  organizationId: string,
  groupId: string,
  userId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('group_members')
    .where('organization_id', '=', organizationId)
    .where('group_id', '=', groupId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The ids among `userIds` that are users of this organisation. */
export async function existingUserIds(
  db: DbOrTrx,
  organizationId: string,
  userIds: string[],
): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', userIds)
    .execute();
  return rows.map((r) => r.id);
}

/** A page of a group's members by name (keyset on name_key, id). */
export async function listMembers(
  db: DbOrTrx,
  organizationId: string,
  groupId: string,
  after: { nameKey: string; id: string } | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('group_members as gm')
    .innerJoin('users as u', 'u.id', 'gm.user_id')
    .select(['u.id', 'u.first_name', 'u.last_name', 'u.email', 'u.status', 'u.name_key'])
    .where('gm.organization_id', '=', organizationId)
    .where('gm.group_id', '=', groupId);
  if (after) query = query.where(sql<boolean>`(u.name_key, u.id) > (${after.nameKey}, ${after.id}::uuid)`);
  return query.orderBy('u.name_key').orderBy('u.id').limit(limit).execute();
}

/** The apps (of this organisation) that are shared with a group. */
export async function appsSharedWithGroup(
  db: DbOrTrx,
  organizationId: string,
  groupId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('app_groups')
    .select('app_id')
    .where('organization_id', '=', organizationId)
    .where('group_id', '=', groupId)
    .execute();
  return rows.map((r) => r.app_id);
}
