import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createUser, signInAs } from '../support/fixtures.ts';
import { useOrganizationWorld } from '../support/admin-world.ts';

const PASSWORD = 'correct horse battery staple';

describe('/profile: own password and sessions', () => {
  const server = useOrganizationWorld();

  it('lists only your own sessions and ends one of them, never someone else’s', async () => {
    const user = await createUser(server.db, server.org.id);
    const other = await createUser(server.db, server.org.id);
    const here = await signInAs(server.db, user);
    const there = await signInAs(server.db, user);
    const theirs = await signInAs(server.db, other);

    const list = await server.app.inject({
      method: 'GET',
      url: '/api/profile/sessions',
      headers: here.headers,
    });
    expect(list.statusCode).toBe(200);
    const sessions = list.json().sessions as Array<{ id: string; current: boolean }>;
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    const otherOfMine = sessions.find((s) => !s.current)!;

    const theirList = await server.app.inject({
      method: 'GET',
      url: '/api/profile/sessions',
      headers: theirs.headers,
    });
    const theirId = theirList.json().sessions[0].id as string;
    const refused = await server.app.inject({
      method: 'DELETE',
      url: `/api/profile/sessions/${encodeURIComponent(theirId)}`,
      headers: here.headers,
    });
    expect(refused.statusCode).toBe(404);

    const noCsrf = await server.app.inject({
      method: 'DELETE',
      url: `/api/profile/sessions/${encodeURIComponent(otherOfMine.id)}`,
      headers: { cookie: here.cookie },
    });
    expect(noCsrf.statusCode).toBe(403);

    const ended = await server.app.inject({
      method: 'DELETE',
      url: `/api/profile/sessions/${encodeURIComponent(otherOfMine.id)}`,
      headers: here.headers,
    });
    expect(ended.statusCode).toBe(204);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/session', headers: there.headers })).statusCode,
    ).toBe(401);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/session', headers: here.headers })).statusCode,
    ).toBe(200);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/session', headers: theirs.headers })).statusCode,
    ).toBe(200);
  });

  it('changes the password only with the current one, and ends the other sessions', async () => {
    const user = await createUser(server.db, server.org.id, { passwordHash: await hashPassword(PASSWORD) });
    const here = await signInAs(server.db, user);
    const there = await signInAs(server.db, user);
    const change = (payload: Record<string, string>) =>
      server.app.inject({ method: 'POST', url: '/api/profile/password', headers: here.headers, payload });

    const wrong = await change({ currentPassword: 'not it', newPassword: 'a brand new passphrase 42' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.fields).toEqual({ currentPassword: 'Your current password is not correct' });

    const short = await change({ currentPassword: PASSWORD, newPassword: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().error.fields.newPassword).toBe('Use at least 8 characters');

    const done = await change({ currentPassword: PASSWORD, newPassword: 'a brand new passphrase 42' });
    expect(done.statusCode).toBe(200);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/session', headers: there.headers })).statusCode,
    ).toBe(401);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/session', headers: here.headers })).statusCode,
    ).toBe(200);
    const again = await change({ currentPassword: PASSWORD, newPassword: 'another passphrase 43' });
    expect(again.json().error.fields.currentPassword).toBe('Your current password is not correct');
  });
});
