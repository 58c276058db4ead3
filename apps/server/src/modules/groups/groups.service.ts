import type { Group, GroupMembersPage } from '@atrium/contracts/groups';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { fieldError, forbidden, notFound } from '../../lib/errors.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { revokeAccessLostToApp, revokeAppAccessLostByUser } from '../apps/revoke-lost-access.ts';
import type { Actor } from '../organizations/actor.ts';
import { actorLabel } from '../users/users.repository.ts';
import { assertDashboardKeepsAnAdmin } from './dashboard-rule.ts';
import {
  addMembers,
  appsSharedWithGroup,
  deleteGroup,
  existingUserIds,
  findGroup,
  groupNameTaken,
  insertGroup,
  listGroups,
  listMembers,
  removeMember,
  renameGroup,
  type GroupRow,
} from './groups.repository.ts';

const NAME_TAKEN = 'A group with this name already exists';
const MEMBERS_PAGE = 50;
const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23505';

export const toGroup = (g: GroupRow): Group => ({
  id: g.id,
  name: g.name,
  isSystem: g.is_system,
  memberCount: g.member_count,
  createdAt: g.created_at.toISOString(),
});

async function groupOf(db: Db, actor: Actor, groupId: string): Promise<GroupRow> {
  const group = await findGroup(db, actor.organizationId, groupId);
  if (!group) throw notFound('Group');
  return group;
}

async function log(
  db: DbOrTrx,
  actor: Actor,
  action: string,
  group: { id: string; name: string },
  details?: object,
) {
  await recordActivity(db, {
    organizationId: actor.organizationId,
    actor: { userId: actor.userId, label: await actorLabel(db, actor.organizationId, actor.userId) },
    action,
    target: { type: 'group', id: group.id, label: group.name },
    ip: actor.ip,
    ...(details ? { details: details as Record<string, unknown> } : {}),
  });
}

export async function getGroups(db: Db, actor: Actor): Promise<Group[]> {
  return (await listGroups(db, actor.organizationId)).map(toGroup);
}

/** Names are unique per organisation ignoring case (`name_key`, with a unique constraint behind it). */
export async function createGroup(db: Db, actor: Actor, name: string): Promise<Group> {
  if (await groupNameTaken(db, actor.organizationId, name.toLowerCase()))
    throw fieldError('name', NAME_TAKEN);
  try {
    return await db.transaction().execute(async (trx) => {
      const group = await insertGroup(trx, actor.organizationId, name);
      await log(trx, actor, 'group.created', group);
      return toGroup(group);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw fieldError('name', NAME_TAKEN);
    throw error;
  }
}

export async function renameGroupById(db: Db, actor: Actor, groupId: string, name: string): Promise<Group> {
  const group = await groupOf(db, actor, groupId);
  if (group.is_system) throw forbidden('Dashboard is the administrators’ group and cannot be renamed');
  if (await groupNameTaken(db, actor.organizationId, name.toLowerCase(), groupId)) {
    throw fieldError('name', NAME_TAKEN);
  }
  try {
    await db.transaction().execute(async (trx) => {
      await renameGroup(trx, actor.organizationId, groupId, name);
      await log(trx, actor, 'group.renamed', { id: groupId, name }, { from: group.name });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw fieldError('name', NAME_TAKEN);
    throw error;
  }
  return toGroup({ ...group, name });
}

export async function deleteGroupById(db: Db, actor: Actor, groupId: string): Promise<void> {
  const group = await groupOf(db, actor, groupId);
  if (group.is_system) throw forbidden('Dashboard is the administrators’ group and cannot be deleted');
  await db.transaction().execute(async (trx) => {
    const sharedApps = await appsSharedWithGroup(trx, actor.organizationId, groupId);
    await deleteGroup(trx, actor.organizationId, groupId);
    // Its members may have lost apps that were shared with it: their grants and refresh tokens
    // for those apps go now, not when they expire. One statement per such app — a handful at
    // most (apps are installed from a catalog), and each statement covers all of its users.
    for (const appId of sharedApps) await revokeAccessLostToApp(trx, actor.organizationId, appId);
    await log(trx, actor, 'group.deleted', group);
  });
}

export async function getMembers(
  db: Db,
  actor: Actor,
  groupId: string,
  rawCursor: string | undefined,
): Promise<GroupMembersPage> {
  const group = await groupOf(db, actor, groupId);
  let after: { nameKey: string; id: string } | undefined;
  if (rawCursor) {
    try {
      const [nameKey, id] = JSON.parse(Buffer.from(rawCursor, 'base64url').toString('utf8')) as [
        string,
        string,
      ];
      if (typeof nameKey !== 'string' || !/^[0-9a-f-]{36}$/.test(id)) throw new Error('bad cursor');
      after = { nameKey, id };
    } catch {
      throw fieldError('cursor', 'This page link is no longer valid. Start again from the first page.');
    }
  }
  const rows = await listMembers(db, actor.organizationId, groupId, after, MEMBERS_PAGE + 1);
  const page = rows.slice(0, MEMBERS_PAGE);
  const last = page.at(-1);
  return {
    group: toGroup(group),
    members: page.map((m) => ({
      id: m.id,
      name: `${m.first_name} ${m.last_name}`,
      email: m.email,
      status: m.status,
    })),
    nextCursor:
      rows.length > MEMBERS_PAGE && last
        ? Buffer.from(JSON.stringify([last.name_key, last.id])).toString('base64url')
        : null,
  };
}

/** Adds users of this organisation to a group; an id of anyone else is refused as unknown. */
export async function addGroupMembers(
  db: Db,
  actor: Actor,
  groupId: string,
  userIds: string[],
): Promise<Group> {
  const group = await groupOf(db, actor, groupId);
  const wanted = [...new Set(userIds)];
  const found = await existingUserIds(db, actor.organizationId, wanted);
  if (found.length !== wanted.length) throw notFound('User');
  const added = await db.transaction().execute(async (trx) => {
    const ids = await addMembers(trx, actor.organizationId, groupId, wanted);
    if (ids.length > 0) await log(trx, actor, 'group.members_added', group, { userIds: ids });
    return ids;
  });
  return toGroup({ ...group, member_count: group.member_count + added.length });
}

/** Removes a member; Dashboard keeps at least one active member. */
export async function removeGroupMember(
  db: Db,
  actor: Actor,
  groupId: string,
  userId: string,
): Promise<void> {
  const group = await groupOf(db, actor, groupId);
  await db.transaction().execute(async (trx) => {
    if (group.is_system) {
      await assertDashboardKeepsAnAdmin(
        trx,
        actor.organizationId,
        userId,
        'Dashboard must keep at least one active member. Add another administrator first.',
      );
    }
    if (!(await removeMember(trx, actor.organizationId, groupId, userId))) throw notFound('Member');
    // Apps open to this group only are no longer theirs: their grants and tokens go now.
    await revokeAppAccessLostByUser(trx, actor.organizationId, userId);
    await log(trx, actor, 'group.member_removed', group, { userId });
  });
}
