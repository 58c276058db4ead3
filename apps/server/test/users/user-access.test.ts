import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/lib/passwords.ts';
import { removeUser, suspendUser } from '../../src/modules/users/user-access.service.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { installBody } from '../apps/helpers.ts';
import { as } from './helpers.ts';
import { useAdminWorld } from '../support/admin-world.ts';

const t = useAdminWorld();

const status = async (userId: string) =>
  (await t.db.selectFrom('users').select('status').where('id', '=', userId).executeTakeFirst())?.status;

async function makeAdmin(user: TestUser) {
  await t.db
    .insertInto('group_members')
    .values({ group_id: t.org.dashboardGroupId, user_id: user.id, organization_id: t.org.id })
    .execute();
}

/** An SSO session and a refresh token at the identity provider, as an app sign-in leaves them. */
async function giveProviderTokens(userId: string) {
  await t.db
    .insertInto('oidc_payloads')
    .values([
      { id: `s-${userId}`, type: 'Session', payload: JSON.stringify({ accountId: userId }) },
      {
        id: `r-${userId}`,
        type: 'RefreshToken',
        payload: JSON.stringify({ accountId: userId, clientId: 'x' }),
      },
    ])
    .execute();
}

const providerTokens = async (userId: string) =>
  t.db
    .selectFrom('oidc_payloads')
    .select('id')
    .where('id', 'in', [`s-${userId}`, `r-${userId}`])
    .execute();

describe('a user’s page', () => {
  it('shows details, groups, active sessions and the apps the user can open', async () => {
    const user = await createUser(t.db, t.org.id, { firstName: 'Vera', lastName: 'View' });
    await signInAs(t.db, user);
    const detail = await t.admin.get(`/api/users/${user.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: user.id,
      name: 'Vera View',
      email: user.email,
      status: 'active',
      groups: [],
      isSelf: false,
      pendingLink: null,
      apps: [],
    });
    expect(detail.body.sessions).toHaveLength(1);
    expect((await t.admin.get(`/api/users/${t.org.admin.id}`)).body.isSelf).toBe(true);
  });

  it('lists the apps open to everyone for an invited user too, and none while suspended', async () => {
    const installed = await t.admin.post('/api/apps', installBody({ title: 'Team Wiki' }));
    expect(installed.status).toBe(201);
    const invited = await createUser(t.db, t.org.id, { firstName: 'Ivy', lastName: 'Invitee' });
    await t.db.updateTable('users').set({ status: 'invited' }).where('id', '=', invited.id).execute();
    const detail = await t.admin.get(`/api/users/${invited.id}`);
    expect(detail.body.status).toBe('invited');
    expect(detail.body.apps).toEqual([{ id: installed.body.app.id, name: 'Team Wiki' }]);

    await t.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', invited.id).execute();
    expect((await t.admin.get(`/api/users/${invited.id}`)).body.apps).toEqual([]);
    await t.admin.delete(`/api/apps/${installed.body.app.id}`);
  });

  it('renames a user', async () => {
    const user = await createUser(t.db, t.org.id);
    expect(
      (await t.admin.patch(`/api/users/${user.id}`, { firstName: 'New', lastName: 'Name' })).status,
    ).toBe(200);
    expect((await t.admin.get(`/api/users/${user.id}`)).body.name).toBe('New Name');
    const found = await t.admin.get('/api/users?q=new%20na');
    expect(found.body.users.map((u: { id: string }) => u.id)).toContain(user.id);
  });

  it('names each session’s browser in plain words, as the user’s own profile does', async () => {
    const user = await createUser(t.db, t.org.id);
    const session = await signInAs(t.db, user);
    const chrome =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    await t.db
      .updateTable('console_sessions')
      .set({ user_agent: chrome })
      .where('user_id', '=', user.id)
      .execute();
    const detail = await t.admin.get(`/api/users/${user.id}`);
    expect(detail.body.sessions).toEqual([
      expect.objectContaining({ userAgent: chrome, browser: 'Chrome on Linux' }),
    ]);
    const own = await t.app.inject({ method: 'GET', url: '/api/profile/sessions', headers: session.headers });
    expect(own.json().sessions).toEqual([expect.objectContaining({ browser: 'Chrome on Linux' })]);
  });

  it('ends one session; the other keeps working', async () => {
    const user = await createUser(t.db, t.org.id);
    await makeAdmin(user);
    const one = await signInAs(t.db, user);
    const two = await signInAs(t.db, user);
    const detail = await t.admin.get(`/api/users/${user.id}`);
    expect(detail.body.sessions).toHaveLength(2);
    const ended = await t.admin.delete(
      `/api/users/${user.id}/sessions/${encodeURIComponent(detail.body.sessions[0].id)}`,
    );
    expect(ended.status).toBe(200);
    const results = await Promise.all(
      [one, two].map((s) => t.app.inject({ url: '/api/users', headers: s.headers })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401]);
    expect((await t.admin.delete(`/api/users/${user.id}/sessions/nope`)).status).toBe(404);
  });
});

describe('suspend and reactivate', () => {
  it('suspends: the user’s next request ends their session; reactivation lets them back', async () => {
    const user = await createUser(t.db, t.org.id, { passwordHash: 'has-a-password' });
    await makeAdmin(user);
    const session = await signInAs(t.db, user);
    await giveProviderTokens(user.id);
    expect(await providerTokens(user.id)).toHaveLength(2);
    expect((await t.app.inject({ url: '/api/users', headers: session.headers })).statusCode).toBe(200);
    expect((await t.admin.post(`/api/users/${user.id}/suspend`)).status).toBe(200);
    expect(await status(user.id)).toBe('suspended');
    expect((await t.app.inject({ url: '/api/users', headers: session.headers })).statusCode).toBe(401);
    const sessions = await t.db
      .selectFrom('console_sessions')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(sessions).toEqual([]);
    expect(await providerTokens(user.id)).toEqual([]);
    expect((await t.admin.post(`/api/users/${user.id}/reactivate`)).status).toBe(200);
    expect(await status(user.id)).toBe('active');
  });

  it('a user who never set a password goes back to invited when reactivated', async () => {
    const user = await createUser(t.db, t.org.id);
    await t.db.updateTable('users').set({ status: 'invited' }).where('id', '=', user.id).execute();
    await t.admin.post(`/api/users/${user.id}/suspend`);
    await t.admin.post(`/api/users/${user.id}/reactivate`);
    expect(await status(user.id)).toBe('invited');
  });

  it('refuses to suspend or delete yourself', async () => {
    const suspend = await t.admin.post(`/api/users/${t.org.admin.id}/suspend`);
    expect(suspend.status).toBe(403);
    expect(suspend.body.error.message).toBe('You cannot suspend yourself');
    const remove = await t.admin.delete(`/api/users/${t.org.admin.id}`);
    expect(remove.status).toBe(403);
    expect(remove.body.error.message).toBe('You cannot delete yourself');
  });

  it('refuses to suspend or delete the last active member of Dashboard', async () => {
    const lone = await createOrganizationWithAdmin(t.db);
    const someone = await createUser(t.db, lone.id);
    const actor = { userId: someone.id, organizationId: lone.id, ip: null, log: t.app.log };
    await expect(suspendUser(t.db, actor, lone.admin.id)).rejects.toMatchObject({
      status: 409,
      code: 'last_admin',
      message: expect.stringMatching(/Dashboard must keep at least one active member/),
    });
    await expect(removeUser(t.db, actor, lone.admin.id)).rejects.toMatchObject({ status: 409 });
    expect(await status(lone.admin.id)).toBe('active');
  });

  it('two admins deleting each other at once: one wins, Dashboard keeps a member', async () => {
    const duo = await createOrganizationWithAdmin(t.db);
    const second = await createUser(t.db, duo.id);
    await t.db
      .insertInto('group_members')
      .values({ group_id: duo.dashboardGroupId, user_id: second.id, organization_id: duo.id })
      .execute();
    const a = as(t, await signInAs(t.db, duo.admin));
    const b = as(t, await signInAs(t.db, second));
    const results = await Promise.all([
      a.delete(`/api/users/${second.id}`),
      b.delete(`/api/users/${duo.admin.id}`),
    ]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const members = await t.db
      .selectFrom('group_members')
      .select('user_id')
      .where('group_id', '=', duo.dashboardGroupId)
      .execute();
    expect(members).toHaveLength(1);
  });
});

describe('delete', () => {
  it('deletes the user with their memberships, sessions and provider tokens', async () => {
    const user = await createUser(t.db, t.org.id);
    await makeAdmin(user);
    const session = await signInAs(t.db, user);
    await giveProviderTokens(user.id);
    expect((await t.admin.delete(`/api/users/${user.id}`)).status).toBe(200);
    expect(await status(user.id)).toBeUndefined();
    expect(await providerTokens(user.id)).toEqual([]);
    expect((await t.app.inject({ url: '/api/users', headers: session.headers })).statusCode).toBe(401);
    expect((await t.admin.get(`/api/users/${user.id}`)).status).toBe(404);
    const activity = await t.db
      .selectFrom('activity_log')
      .select('action')
      .where('target_id', '=', user.id)
      .execute();
    expect(activity.map((a) => a.action)).toContain('user.deleted');
  });
});

describe('password set by an admin', () => {
  it('sets a new password and ends the user’s sessions', async () => {
    const user = await createUser(t.db, t.org.id);
    await makeAdmin(user);
    const session = await signInAs(t.db, user);
    const set = await t.admin.put(`/api/users/${user.id}/password`, { password: 'brand new passphrase' });
    expect(set.status).toBe(200);
    const row = await t.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword(row.password_hash!, 'brand new passphrase')).toBe(true);
    expect(row.password_changed_at).not.toBeNull();
    expect((await t.app.inject({ url: '/api/users', headers: session.headers })).statusCode).toBe(401);
  });

  it('applies the password rules, and sends you to your profile for your own', async () => {
    const user = await createUser(t.db, t.org.id);
    const weak = await t.admin.put(`/api/users/${user.id}/password`, { password: 'qwertyuiop' });
    expect(weak.status).toBe(400);
    expect(weak.body.error.fields.password).toMatch(/too common/);
    const self = await t.admin.put(`/api/users/${t.org.admin.id}/password`, {
      password: 'brand new passphrase',
    });
    expect(self.status).toBe(403);
    expect(self.body.error.message).toMatch(/profile/);
  });
});

describe('roles', () => {
  it('refuses every users endpoint to a signed-in non-admin and to a signed-out visitor', async () => {
    const user = await createUser(t.db, t.org.id);
    const plain = as(t, await signInAs(t.db, user));
    for (const [method, url] of [
      ['GET', '/api/users'],
      ['GET', '/api/users/export.csv'],
      ['GET', '/api/users/email-domains'],
      ['POST', '/api/users'],
      ['GET', `/api/users/${user.id}`],
      ['POST', `/api/users/${t.org.admin.id}/suspend`],
      ['DELETE', `/api/users/${t.org.admin.id}`],
      ['GET', '/api/groups'],
      ['POST', '/api/groups'],
    ] as const) {
      const response = await (method === 'GET'
        ? plain.get(url)
        : method === 'POST'
          ? plain.post(url, {})
          : plain.delete(url));
      expect(response.status, `${method} ${url}`).toBe(403);
      const anonymous = await t.app.inject({ method, url });
      expect(anonymous.statusCode, `${method} ${url} signed out`).toBe(401);
    }
  });
});
