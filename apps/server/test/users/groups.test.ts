import { describe, expect, it } from 'vitest';
import { createUser, signInAs } from '../support/fixtures.ts';
import { as } from './helpers.ts';
import { useAdminWorld } from '../support/admin-world.ts';

const t = useAdminWorld();

describe('groups', () => {
  it('lists Dashboard first with member counts', async () => {
    const list = await t.admin.get('/api/groups');
    expect(list.status).toBe(200);
    expect(list.body.groups[0]).toMatchObject({ name: 'Dashboard', isSystem: true, memberCount: 1 });
  });

  it('creates, renames and deletes a group; names are unique ignoring case', async () => {
    const created = await t.admin.post('/api/groups', { name: '  Engineering ' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Engineering', isSystem: false, memberCount: 0 });
    const dup = await t.admin.post('/api/groups', { name: 'ENGINEERING' });
    expect(dup.status).toBe(400);
    expect(dup.body.error.fields).toEqual({ name: 'A group with this name already exists' });
    const dashboardDup = await t.admin.post('/api/groups', { name: 'dashboard' });
    expect(dashboardDup.body.error.fields.name).toBe('A group with this name already exists');

    await t.admin.post('/api/groups', { name: 'Design' });
    const clash = await t.admin.patch(`/api/groups/${created.body.id}`, { name: 'design' });
    expect(clash.body.error.fields.name).toBe('A group with this name already exists');
    const renamed = await t.admin.patch(`/api/groups/${created.body.id}`, { name: 'Platform' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Platform');
    // Changing only the case of its own name is fine.
    expect((await t.admin.patch(`/api/groups/${created.body.id}`, { name: 'PLATFORM' })).status).toBe(200);

    expect((await t.admin.delete(`/api/groups/${created.body.id}`)).status).toBe(200);
    const names = (await t.admin.get('/api/groups')).body.groups.map((g: { name: string }) => g.name);
    expect(names).toEqual(['Dashboard', 'Design']);
    expect((await t.admin.post('/api/groups', { name: '' })).body.error.fields.name).toBe(
      'Enter a group name',
    );
  });

  it('Dashboard cannot be renamed or deleted', async () => {
    const rename = await t.admin.patch(`/api/groups/${t.org.dashboardGroupId}`, { name: 'Admins' });
    expect(rename.status).toBe(403);
    expect(rename.body.error.message).toMatch(/cannot be renamed/);
    const remove = await t.admin.delete(`/api/groups/${t.org.dashboardGroupId}`);
    expect(remove.status).toBe(403);
    expect(remove.body.error.message).toMatch(/cannot be deleted/);
  });

  it('adds and removes members, and lists them by name in pages', async () => {
    const group = (await t.admin.post('/api/groups', { name: 'Readers' })).body;
    const users = await Promise.all(
      ['Zed', 'Amy', 'Moe'].map((firstName) => createUser(t.db, t.org.id, { firstName, lastName: 'Reader' })),
    );
    const added = await t.admin.post(`/api/groups/${group.id}/members`, { userIds: users.map((u) => u.id) });
    expect(added.status).toBe(200);
    expect(added.body.memberCount).toBe(3);
    // Adding someone twice changes nothing.
    expect(
      (await t.admin.post(`/api/groups/${group.id}/members`, { userIds: [users[0]!.id] })).body.memberCount,
    ).toBe(3);
    const members = await t.admin.get(`/api/groups/${group.id}/members`);
    expect(members.body.members.map((m: { name: string }) => m.name)).toEqual([
      'Amy Reader',
      'Moe Reader',
      'Zed Reader',
    ]);
    expect(members.body.nextCursor).toBeNull();
    expect((await t.admin.delete(`/api/groups/${group.id}/members/${users[1]!.id}`)).status).toBe(200);
    expect((await t.admin.delete(`/api/groups/${group.id}/members/${users[1]!.id}`)).status).toBe(404);
    const list = await t.admin.get('/api/groups');
    expect(list.body.groups.find((g: { id: string }) => g.id === group.id).memberCount).toBe(2);
  });

  it('pages a large group 50 at a time', async () => {
    const group = (await t.admin.post('/api/groups', { name: 'Everyone' })).body;
    const users = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        createUser(t.db, t.org.id, { firstName: `P${String(i).padStart(2, '0')}` }),
      ),
    );
    await t.admin.post(`/api/groups/${group.id}/members`, { userIds: users.map((u) => u.id) });
    const first = await t.admin.get(`/api/groups/${group.id}/members`);
    expect(first.body.members).toHaveLength(50);
    const second = await t.admin.get(`/api/groups/${group.id}/members?cursor=${first.body.nextCursor}`);
    expect(second.body.members).toHaveLength(10);
    expect(second.body.nextCursor).toBeNull();
  });

  it('Dashboard keeps at least one active member', async () => {
    const lone = await t.admin.delete(`/api/groups/${t.org.dashboardGroupId}/members/${t.org.admin.id}`);
    expect(lone.status).toBe(409);
    expect(lone.body.error.message).toMatch(/Dashboard must keep at least one active member/);
    // A suspended second member does not count: they cannot administer anything.
    const sleeper = await createUser(t.db, t.org.id, { passwordHash: 'x' });
    await t.admin.post(`/api/groups/${t.org.dashboardGroupId}/members`, { userIds: [sleeper.id] });
    await t.admin.post(`/api/users/${sleeper.id}/suspend`);
    expect(
      (await t.admin.delete(`/api/groups/${t.org.dashboardGroupId}/members/${t.org.admin.id}`)).status,
    ).toBe(409);
    // The suspended member itself may leave.
    expect((await t.admin.delete(`/api/groups/${t.org.dashboardGroupId}/members/${sleeper.id}`)).status).toBe(
      200,
    );
  });

  it('admin status follows Dashboard membership on the very next request', async () => {
    const user = await createUser(t.db, t.org.id);
    const session = as(t, await signInAs(t.db, user));
    expect((await session.get('/api/users')).status).toBe(403);
    await t.admin.post(`/api/groups/${t.org.dashboardGroupId}/members`, { userIds: [user.id] });
    expect((await session.get('/api/users')).status).toBe(200);
    await t.admin.delete(`/api/groups/${t.org.dashboardGroupId}/members/${user.id}`);
    expect((await session.get('/api/users')).status).toBe(403);
  });

  it('an admin may leave Dashboard while another active admin remains', async () => {
    const other = await createUser(t.db, t.org.id, { passwordHash: 'x' });
    await t.admin.post(`/api/groups/${t.org.dashboardGroupId}/members`, { userIds: [other.id] });
    const otherAdmin = as(t, await signInAs(t.db, other));
    expect(
      (await otherAdmin.delete(`/api/groups/${t.org.dashboardGroupId}/members/${other.id}`)).status,
    ).toBe(200);
    expect((await otherAdmin.get('/api/groups')).status).toBe(403);
  });

  it('leaving a group, or its deletion, revokes what members held for apps shared only with it', async () => {
    const group = (await t.admin.post('/api/groups', { name: 'Wiki editors' })).body;
    const [leaver, stayer] = await Promise.all([createUser(t.db, t.org.id), createUser(t.db, t.org.id)]);
    await t.admin.post(`/api/groups/${group.id}/members`, { userIds: [leaver.id, stayer.id] });
    const clientId = `wiki-${group.id}`;
    await t.db
      .insertInto('oidc_clients')
      .values({
        client_id: clientId,
        organization_id: t.org.id,
        metadata: JSON.stringify({ client_id: clientId }),
      })
      .execute();
    const app = await t.db
      .insertInto('apps')
      .values({
        organization_id: t.org.id,
        template_key: 'wiki',
        title: 'Wiki',
        launch_url: 'https://wiki.example.test',
        client_id: clientId,
        open_to_everyone: false,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('app_groups')
      .values({ app_id: app.id, group_id: group.id, organization_id: t.org.id })
      .execute();
    await t.db
      .insertInto('oidc_payloads')
      .values(
        [leaver, stayer].map((u) => ({
          id: `grant-${u.id}`,
          type: 'Grant',
          payload: JSON.stringify({ clientId, accountId: u.id }),
        })),
      )
      .execute();
    const grants = async () =>
      (await t.db.selectFrom('oidc_payloads').select('id').where('id', 'like', 'grant-%').execute()).map(
        (r) => r.id,
      );

    expect((await t.admin.delete(`/api/groups/${group.id}/members/${leaver.id}`)).status).toBe(200);
    expect(await grants()).toEqual([`grant-${stayer.id}`]);
    expect((await t.admin.delete(`/api/groups/${group.id}`)).status).toBe(200);
    expect(await grants()).toEqual([]);
  });

  it('records group changes in the activity log', async () => {
    const actions = await t.db
      .selectFrom('activity_log')
      .select('action')
      .where('organization_id', '=', t.org.id)
      .where('target_type', '=', 'group')
      .execute();
    expect(new Set(actions.map((a) => a.action))).toEqual(
      new Set([
        'group.created',
        'group.renamed',
        'group.deleted',
        'group.members_added',
        'group.member_removed',
      ]),
    );
  });
});
