import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
  type TestUser,
} from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { as } from './helpers.ts';

// An admin of organisation B asks about organisation A's users and groups by their real ids:
// every answer is 404, exactly as for an id that does not exist, and nothing of A changes.
let t: TestApp;
let a: TestOrganization;
let b: TestOrganization;
let aUser: TestUser;
let aGroupId: string;
let aSessionId: string;
let bAdmin: ReturnType<typeof as>;

beforeAll(async () => {
  t = await createTestApp();
  a = await createOrganizationWithAdmin(t.db);
  b = await createOrganizationWithAdmin(t.db);
  aUser = await createUser(t.db, a.id, { firstName: 'Alice', lastName: 'Apart', passwordHash: 'x' });
  const aAdmin = as(t, await signInAs(t.db, a.admin));
  aGroupId = (await aAdmin.post('/api/groups', { name: 'Alpha' })).body.id;
  await aAdmin.post(`/api/groups/${aGroupId}/members`, { userIds: [aUser.id] });
  await signInAs(t.db, aUser);
  aSessionId = (
    await t.db
      .selectFrom('console_sessions')
      .select('id')
      .where('user_id', '=', aUser.id)
      .executeTakeFirstOrThrow()
  ).id;
  bAdmin = as(t, await signInAs(t.db, b.admin));
});

afterAll(() => t.close());

describe('another organisation’s users and groups', () => {
  it('answers 404 on every users endpoint', async () => {
    const calls: Array<[string, () => ReturnType<typeof bAdmin.get>]> = [
      ['GET user', () => bAdmin.get(`/api/users/${aUser.id}`)],
      ['PATCH user', () => bAdmin.patch(`/api/users/${aUser.id}`, { firstName: 'X', lastName: 'Y' })],
      ['suspend', () => bAdmin.post(`/api/users/${aUser.id}/suspend`)],
      ['reactivate', () => bAdmin.post(`/api/users/${aUser.id}/reactivate`)],
      [
        'set password',
        () => bAdmin.put(`/api/users/${aUser.id}/password`, { password: 'a long enough passphrase' }),
      ],
      ['password link', () => bAdmin.post(`/api/users/${aUser.id}/password-link`)],
      ['end session', () => bAdmin.delete(`/api/users/${aUser.id}/sessions/${aSessionId}`)],
      [
        'end session of own user by id',
        () => bAdmin.delete(`/api/users/${b.admin.id}/sessions/${aSessionId}`),
      ],
      ['DELETE user', () => bAdmin.delete(`/api/users/${aUser.id}`)],
    ];
    for (const [name, call] of calls) {
      const response = await call();
      expect(response.status, name).toBe(404);
      expect(response.body.error.code, name).toBe('not_found');
    }
    const after = await t.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', aUser.id)
      .executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: 'active', first_name: 'Alice', password_hash: 'x' });
    expect(
      await t.db.selectFrom('console_sessions').select('id').where('id', '=', aSessionId).execute(),
    ).toHaveLength(1);
  });

  it('answers 404 on every groups endpoint', async () => {
    const bUser = await createUser(t.db, b.id);
    const calls: Array<[string, () => ReturnType<typeof bAdmin.get>]> = [
      ['members', () => bAdmin.get(`/api/groups/${aGroupId}/members`)],
      ['rename', () => bAdmin.patch(`/api/groups/${aGroupId}`, { name: 'Taken over' })],
      [
        'add own user to their group',
        () => bAdmin.post(`/api/groups/${aGroupId}/members`, { userIds: [bUser.id] }),
      ],
      ['remove their member', () => bAdmin.delete(`/api/groups/${aGroupId}/members/${aUser.id}`)],
      ['rename their Dashboard', () => bAdmin.patch(`/api/groups/${a.dashboardGroupId}`, { name: 'X' })],
      ['delete', () => bAdmin.delete(`/api/groups/${aGroupId}`)],
      [
        'add their user to own group',
        () => bAdmin.post(`/api/groups/${b.dashboardGroupId}/members`, { userIds: [aUser.id] }),
      ],
      [
        'remove their user from own group',
        () => bAdmin.delete(`/api/groups/${b.dashboardGroupId}/members/${aUser.id}`),
      ],
    ];
    for (const [name, call] of calls) {
      const response = await call();
      expect(response.status, name).toBe(404);
    }
    const group = await t.db
      .selectFrom('groups')
      .selectAll()
      .where('id', '=', aGroupId)
      .executeTakeFirstOrThrow();
    expect(group.name).toBe('Alpha');
    const members = await t.db
      .selectFrom('group_members')
      .select('user_id')
      .where('group_id', '=', aGroupId)
      .execute();
    expect(members.map((m) => m.user_id)).toEqual([aUser.id]);
  });

  it('never lists, searches or exports them', async () => {
    const list = await bAdmin.get('/api/users?q=alice');
    expect(list.body.users).toEqual([]);
    const all = await bAdmin.get('/api/users');
    const aIds = (
      await t.db.selectFrom('users').select('id').where('organization_id', '=', a.id).execute()
    ).map((r) => r.id);
    const listed = all.body.users.map((u: { id: string }) => u.id);
    expect(listed).toContain(b.admin.id);
    expect(listed.filter((id: string) => aIds.includes(id))).toEqual([]);
    const csv = await bAdmin.get('/api/users/export.csv');
    expect(csv.response.body).not.toContain(aUser.email);
    const groups = await bAdmin.get('/api/groups');
    expect(groups.body.groups.map((g: { id: string }) => g.id)).toEqual([b.dashboardGroupId]);
  });

  it('refuses their group in a new user', async () => {
    const created = await bAdmin.post('/api/users', {
      firstName: 'N',
      lastName: 'U',
      localPart: 'nu',
      domain: 'b.test',
      groupIds: [aGroupId],
      credential: 'invitation',
    });
    expect(created.status).toBe(400);
  });
});
