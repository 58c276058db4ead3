import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { ensureMailClient } from '../../src/modules/mail/mail-client.ts';
import { createUser, signInAs } from '../support/fixtures.ts';
import { useOrganizationWorld } from '../support/admin-world.ts';
import { createAppPassword } from '../support/app-passwords.ts';

// The API behind /profile's app passwords, and the grant Dovecot sends them to (without the mail
// servers: delivery.test.ts and sign-in.test.ts go through them).

describe('/api/profile/app-passwords', () => {
  const server = useOrganizationWorld();

  const call = (
    session: { headers: Record<string, string> },
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    payload?: object,
  ) => server.app.inject({ method, url, headers: session.headers, ...(payload ? { payload } : {}) });

  it('creates a named app password shown once, lists it with its dates, and revokes it', async () => {
    const user = await createUser(server.db, server.org.id);
    const session = await signInAs(server.db, user);
    const created = await call(session, 'POST', '/api/profile/app-passwords', { name: '  Laptop mail  ' });
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body.password).toMatch(/^[a-z2-7]{5}(-[a-z2-7]{5}){3}$/);
    expect(body.appPassword).toMatchObject({ name: 'Laptop mail', lastUsedAt: null });

    const list = await call(session, 'GET', '/api/profile/app-passwords');
    expect(list.json()).toEqual({ appPasswords: [body.appPassword] });
    expect(list.body).not.toContain(body.password);
    const stored = await server.db
      .selectFrom('app_passwords')
      .select('password_hash')
      .executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^\$argon2id\$/);

    const again = await call(session, 'POST', '/api/profile/app-passwords', { name: 'Laptop mail' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.fields).toHaveProperty('name');

    const revoked = await call(session, 'DELETE', `/api/profile/app-passwords/${body.appPassword.id}`);
    expect(revoked.statusCode).toBe(204);
    expect((await call(session, 'GET', '/api/profile/app-passwords')).json()).toEqual({ appPasswords: [] });
    const activity = await server.db
      .selectFrom('activity_log')
      .select('action')
      .where('actor_user_id', '=', user.id)
      .orderBy('created_at')
      .execute();
    expect(activity.map((a) => a.action)).toEqual(['user.app_password_created', 'user.app_password_revoked']);
  });

  it('keeps each user to their own: another user’s app password is 404, and never listed', async () => {
    const owner = await createUser(server.db, server.org.id);
    const other = await createUser(server.db, server.org.id);
    const ownerSession = await signInAs(server.db, owner);
    const otherSession = await signInAs(server.db, other);
    const created = await call(ownerSession, 'POST', '/api/profile/app-passwords', { name: 'Phone' });
    const id = created.json().appPassword.id as string;

    expect((await call(otherSession, 'GET', '/api/profile/app-passwords')).json()).toEqual({
      appPasswords: [],
    });
    const refused = await call(otherSession, 'DELETE', `/api/profile/app-passwords/${id}`);
    expect(refused.statusCode).toBe(404);
    expect((await call(ownerSession, 'GET', '/api/profile/app-passwords')).json().appPasswords).toHaveLength(
      1,
    );
  });

  it('stops at 50 app passwords a user, with a message saying what to do', async () => {
    const user = await createUser(server.db, server.org.id);
    await server.db
      .insertInto('app_passwords')
      .values(
        Array.from({ length: 50 }, (_, i) => ({
          organization_id: server.org.id,
          user_id: user.id,
          name: `Device ${i}`,
          lookup: 'abcd',
          password_hash: 'not-a-hash',
        })),
      )
      .execute();
    const session = await signInAs(server.db, user);
    const refused = await call(session, 'POST', '/api/profile/app-passwords', { name: 'One more' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toMatch(/revoke one/i);
  });

  it('answers bad input with a 400 naming the field, and needs a session and its CSRF token', async () => {
    const user = await createUser(server.db, server.org.id);
    const session = await signInAs(server.db, user);
    for (const payload of [{}, { name: '' }, { name: 'x'.repeat(61) }, { name: 'a\u202Eb' }, { name: 7 }]) {
      const response = await call(session, 'POST', '/api/profile/app-passwords', payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.fields, JSON.stringify(payload)).toHaveProperty('name');
    }
    const badId = await call(session, 'DELETE', '/api/profile/app-passwords/not-an-id');
    expect(badId.statusCode).toBe(400);
    expect(badId.json().error.fields).toHaveProperty('appPasswordId');

    const anonymous = await server.app.inject({ method: 'GET', url: '/api/profile/app-passwords' });
    expect(anonymous.statusCode).toBe(401);
    const noCsrf = await server.app.inject({
      method: 'POST',
      url: '/api/profile/app-passwords',
      headers: { cookie: session.cookie },
      payload: { name: 'No token' },
    });
    expect(noCsrf.statusCode).toBe(403);
  });
});

describe('/api/mail/password-grant (Dovecot’s app-password check)', () => {
  const server = useOrganizationWorld();
  let client: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    client = await ensureMailClient(server.db, server.config);
  });

  /** Dovecot's request (always from its own address, 127.0.0.1); `client`: the address it names. */
  const grant = (fields: Record<string, string>, client?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/mail/password-grant',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(client ? { 'x-dovecot-auth-remote': client } : {}),
      },
      payload: new URLSearchParams(fields).toString(),
      remoteAddress: '127.0.0.1',
    });

  it('answers the mail client with the address for a good app password, and the same refusal for every bad one', async () => {
    const user = await createUser(server.db, server.org.id);
    const { password, session } = await createAppPassword(server, user, 'Phone');
    const base = { grant_type: 'password', client_id: client.clientId, client_secret: client.clientSecret };

    const ok = await grant({ ...base, username: user.email.toUpperCase(), password });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ token_type: 'Bearer', email: user.email });
    const listed = await server.app.inject({
      method: 'GET',
      url: '/api/profile/app-passwords',
      headers: session.headers,
    });
    expect(listed.json().appPasswords[0].lastUsedAt).not.toBeNull();

    const refusals = await Promise.all([
      grant({ ...base, username: user.email, password: 'aaaaa-bbbbb-ccccc-ddddd' }),
      grant({ ...base, username: `nobody-${user.email}`, password }),
    ]);
    for (const refused of refusals) {
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({
        error: 'invalid_grant',
        error_description: 'invalid username or app password',
      });
    }
  });

  it('ends a user’s app passwords when their password changes (they may have been made by someone who knew it)', async () => {
    const accountPassword = 'correct horse battery staple';
    const user = await createUser(server.db, server.org.id, {
      passwordHash: await hashPassword(accountPassword),
    });
    const { password, session } = await createAppPassword(server, user, 'Phone');
    const changed = await server.app.inject({
      method: 'POST',
      url: '/api/profile/password',
      headers: session.headers,
      payload: { currentPassword: accountPassword, newPassword: 'a different long passphrase 42' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const base = { grant_type: 'password', client_id: client.clientId, client_secret: client.clientSecret };
    expect((await grant({ ...base, username: user.email, password })).statusCode).toBe(400);
  });

  it('refuses any other client, and names the field of a malformed request', async () => {
    const wrongSecret = await grant({
      grant_type: 'password',
      username: 'a@example.com',
      password: 'x',
      client_id: client.clientId,
      client_secret: 'not-the-secret',
    });
    expect(wrongSecret.statusCode).toBe(401);
    expect(wrongSecret.json().error).toBe('invalid_client');

    const wrongType = await grant({
      grant_type: 'client_credentials',
      username: 'a@example.com',
      password: 'x',
    });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().error.fields).toHaveProperty('grant_type');
    const noUser = await grant({ grant_type: 'password', password: 'x' });
    expect(noUser.json().error.fields).toHaveProperty('username');
  });

  // Issue 30 item 2: every mail client reaches Atrium through Dovecot's one address, so wrong app
  // passwords counted by that address held up every mail client of the account.
  it('counts wrong app passwords by the client address Dovecot names, so one client’s guesses do not hold up another', async () => {
    const user = await createUser(server.db, server.org.id);
    const password = (await createAppPassword(server, user, 'Phone')).password;
    const base = { grant_type: 'password', client_id: client.clientId, client_secret: client.clientSecret };
    const wrong = { ...base, username: user.email, password: 'aaaaa-bbbbb-ccccc-ddddd' };
    const right = { ...base, username: user.email, password };

    // A guesser's client at 203.0.113.5: five wrong app passwords, then it waits.
    for (let i = 0; i < 5; i++) expect((await grant(wrong, '203.0.113.5:50123')).statusCode).toBe(400);
    const slowed = await grant(wrong, '203.0.113.5:50124');
    expect(slowed.statusCode).toBe(429);
    expect(slowed.json().error.code).toBe('sign_in_throttled');

    // The owner's phone and laptop, elsewhere (IPv4 and IPv6 as Dovecot writes them), get in.
    expect((await grant(right, '198.51.100.7:41000')).statusCode).toBe(200);
    expect((await grant(right, '[2001:db8::7]:41001')).statusCode).toBe(200);
    // The owner's success does not end the guesser's wait; a right one is let in even there
    // (issue 38: nothing tells a device behind the guesser's address from the guesser).
    expect((await grant(wrong, '203.0.113.5:50125')).statusCode).toBe(429);
    expect((await grant(right, '203.0.113.5:50126')).statusCode).toBe(200);
  });

  it('counts by Dovecot’s own address when it names no client, and believes the header from Dovecot only', async () => {
    const user = await createUser(server.db, server.org.id);
    const password = (await createAppPassword(server, user, 'Phone')).password;
    const base = { grant_type: 'password', client_id: client.clientId, client_secret: client.clientSecret };
    for (let i = 0; i < 5; i++) {
      expect(
        (await grant({ ...base, username: user.email, password: 'aaaaa-bbbbb-ccccc-ddddd' })).statusCode,
      ).toBe(400);
    }
    const wrong = { ...base, username: user.email, password: 'aaaaa-bbbbb-ccccc-ddddd' };
    expect((await grant(wrong)).statusCode).toBe(429);
    expect((await grant(wrong, 'not an address')).statusCode).toBe(429);
    // Anyone else naming a client address is refused before any counting.
    const stranger = await grant(
      { ...base, client_secret: 'not-the-secret', username: user.email, password },
      '198.51.100.8:1',
    );
    expect(stranger.statusCode).toBe(401);
  });
});
