import { beforeAll, describe, expect, it } from 'vitest';
import { ensureMailClient } from '../../src/modules/mail/mail-client.ts';
import { useAdminWorld } from '../support/admin-world.ts';
import { createAppPassword } from '../support/app-passwords.ts';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';
import { as } from '../users/helpers.ts';

// An admin's view of a user's devices on /users/:id (issue 42): the user's app passwords, listed
// with their dates, and revoked one by one (a lost phone) without suspending the user.

describe('/api/users/:id/app-passwords', () => {
  const server = useAdminWorld();
  let client: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    client = await ensureMailClient(server.db, server.config);
  });

  /** Dovecot's app-password check, as the IMAP and SMTP sign-ins of a device reach Atrium. */
  const grant = (username: string, password: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/mail/password-grant',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'password',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        username,
        password,
      }).toString(),
      remoteAddress: '127.0.0.1',
    });

  it('lists a user’s app passwords for their admin, and revokes one at once, logged with the admin as actor', async () => {
    const user = await createUser(server.db, server.org.id, { firstName: 'Lena', lastName: 'Lost' });
    const phone = await createAppPassword(server, user, 'Phone');
    const laptop = await createAppPassword(server, user, 'Laptop');
    expect((await grant(user.email, phone.password)).statusCode).toBe(200);

    const listed = await server.admin.get(`/api/users/${user.id}/app-passwords`);
    expect(listed.status).toBe(200);
    const items = listed.body.appPasswords as Array<Record<string, unknown>>;
    expect(items.map((item) => item.name)).toEqual(['Laptop', 'Phone']);
    expect(items[1]).toMatchObject({ id: phone.id, name: 'Phone', lastUsedAt: expect.any(String) });
    expect(items[0]).toMatchObject({ id: laptop.id, lastUsedAt: null, createdAt: expect.any(String) });
    expect(listed.response.body).not.toContain(phone.password);

    const revoked = await server.admin.delete(`/api/users/${user.id}/app-passwords/${phone.id}`);
    expect(revoked.status).toBe(204);
    // The lost phone is refused on its very next sign-in; the laptop still signs in.
    const refused = await grant(user.email, phone.password);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await grant(user.email, laptop.password)).statusCode).toBe(200);

    const after = await server.admin.get(`/api/users/${user.id}/app-passwords`);
    expect(after.body.appPasswords.map((item: { id: string }) => item.id)).toEqual([laptop.id]);
    const own = await server.app.inject({
      method: 'GET',
      url: '/api/profile/app-passwords',
      headers: laptop.session.headers,
    });
    expect(own.json().appPasswords.map((item: { id: string }) => item.id)).toEqual([laptop.id]);

    const entry = await server.db
      .selectFrom('activity_log')
      .selectAll()
      .where('organization_id', '=', server.org.id)
      .where('action', '=', 'user.app_password_revoked')
      .where('actor_user_id', '=', server.org.admin.id)
      .executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ target_type: 'user', target_id: user.id, target_label: 'Lena Lost' });
    expect(entry.details).toMatchObject({ by: 'admin', name: 'Phone' });

    const again = await server.admin.delete(`/api/users/${user.id}/app-passwords/${phone.id}`);
    expect(again.status).toBe(404);
  });

  it('answers an empty list for a user without app passwords, and 404 for an app password of someone else', async () => {
    const user = await createUser(server.db, server.org.id);
    const other = await createUser(server.db, server.org.id);
    const theirs = await createAppPassword(server, other, 'Tablet');
    expect((await server.admin.get(`/api/users/${user.id}/app-passwords`)).body).toEqual({
      appPasswords: [],
    });

    const wrongUser = await server.admin.delete(`/api/users/${user.id}/app-passwords/${theirs.id}`);
    expect(wrongUser.status).toBe(404);
    expect((await grant(other.email, theirs.password)).statusCode).toBe(200);

    const badId = await server.admin.delete(`/api/users/${user.id}/app-passwords/not-an-id`);
    expect(badId.status).toBe(400);
    expect(badId.body.error.fields).toHaveProperty('appPasswordId');
  });

  it('refuses a user who is not an admin with 403, even for their own app passwords', async () => {
    const user = await createUser(server.db, server.org.id);
    const mine = await createAppPassword(server, user, 'Phone');
    const colleague = await createUser(server.db, server.org.id);
    const theirs = await createAppPassword(server, colleague, 'Phone');
    const member = as(server, await signInAs(server.db, user));

    for (const [userId, id] of [
      [colleague.id, theirs.id],
      [user.id, mine.id],
    ] as const) {
      const list = await member.get(`/api/users/${userId}/app-passwords`);
      expect(list.status).toBe(403);
      const revoke = await member.delete(`/api/users/${userId}/app-passwords/${id}`);
      expect(revoke.status).toBe(403);
    }
    expect((await grant(colleague.email, theirs.password)).statusCode).toBe(200);
    expect((await grant(user.email, mine.password)).statusCode).toBe(200);
  });

  it('answers another organisation’s admin 404, as for a user that does not exist, and revokes nothing', async () => {
    const user = await createUser(server.db, server.org.id);
    const phone = await createAppPassword(server, user, 'Phone');
    const elsewhere = await createOrganizationWithAdmin(server.db);
    const stranger = as(server, await signInAs(server.db, elsewhere.admin));

    const list = await stranger.get(`/api/users/${user.id}/app-passwords`);
    expect(list.status).toBe(404);
    const missing = await stranger.get(`/api/users/${crypto.randomUUID()}/app-passwords`);
    expect(missing.status).toBe(404);
    expect(list.body).toEqual(missing.body);

    const revoke = await stranger.delete(`/api/users/${user.id}/app-passwords/${phone.id}`);
    expect(revoke.status).toBe(404);
    // Their own user's id with this organisation's app password: still nothing.
    const crossed = await stranger.delete(`/api/users/${elsewhere.admin.id}/app-passwords/${phone.id}`);
    expect(crossed.status).toBe(404);
    expect((await grant(user.email, phone.password)).statusCode).toBe(200);
    expect((await server.admin.get(`/api/users/${user.id}/app-passwords`)).body.appPasswords).toHaveLength(1);
  });

  it('needs a session and its CSRF token to revoke', async () => {
    const user = await createUser(server.db, server.org.id);
    const phone = await createAppPassword(server, user, 'Phone');
    const url = `/api/users/${user.id}/app-passwords/${phone.id}`;
    expect(
      (await server.app.inject({ method: 'GET', url: `/api/users/${user.id}/app-passwords` })).statusCode,
    ).toBe(401);
    const noCsrf = await server.app.inject({
      method: 'DELETE',
      url,
      headers: { cookie: server.adminSession.cookie },
    });
    expect(noCsrf.statusCode).toBe(403);
    expect((await grant(user.email, phone.password)).statusCode).toBe(200);
  });
});
