import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { signedInDevice, signInLandsOn, useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

// Ending a session from the user's page (admin) or /profile (the user) signs that device out for
// real: it cannot pass straight back in through single sign-on, while other devices stay signed in.

const PASSWORD = WORLD_PASSWORD;

describe('ending a session', () => {
  const world = useSignInWorld({ adminPassword: false });
  let admin: TestSession;

  beforeAll(async () => {
    admin = await signInAs(world.server.db, world.org.admin);
  });

  async function sessionsOf(userId: string): Promise<{ id: string; lastSeenAt: string }[]> {
    const res = await world.server.app.inject({ url: `/api/users/${userId}`, headers: admin.headers });
    return res.json().sessions;
  }

  it('an admin ends a device: it must sign in again with password and code; the other stays', async () => {
    const user = await createUser(world.server.db, world.org.id, {
      passwordHash: await hashPassword(PASSWORD),
    });
    const laptop = await signedInDevice(world, user.email);
    const phone = await signedInDevice(world, user.email);
    // Both devices pass straight through single sign-on while their sessions last.
    expect(await signInLandsOn(phone)).toBe('/application');

    const sessions = await sessionsOf(user.id);
    expect(sessions).toHaveLength(2); // the laptop and the phone (its pass-through replaced its session)
    const laptopSession = (
      await world.server.db
        .selectFrom('console_sessions')
        .select('id')
        .where('user_id', '=', user.id)
        .orderBy('created_at')
        .executeTakeFirstOrThrow()
    ).id;
    const ended = await world.server.app.inject({
      method: 'DELETE',
      url: `/api/users/${user.id}/sessions/${encodeURIComponent(laptopSession)}`,
      headers: admin.headers,
    });
    expect(ended.statusCode).toBe(200);

    expect((await laptop.request('/api/session')).status).toBe(401);
    expect(await signInLandsOn(laptop)).toBe('/login');
    expect((await phone.request('/api/session')).status).toBe(200);
    expect(await signInLandsOn(phone)).toBe('/application');

    const log = await world.server.app.inject({ url: '/api/activity?kind=user', headers: admin.headers });
    expect(log.json().items[0]).toMatchObject({ action: 'user.session_ended', target: { id: user.id } });
  });

  it('a user ends one of their own devices from /profile with the same effect', async () => {
    const user = await createUser(world.server.db, world.org.id, {
      passwordHash: await hashPassword(PASSWORD),
    });
    const laptop = await signedInDevice(world, user.email);
    const phone = await signedInDevice(world, user.email);
    const csrf = JSON.parse((await phone.request('/api/session')).body).csrfToken as string;
    const own = JSON.parse((await phone.request('/api/profile/sessions')).body).sessions as {
      id: string;
      current: boolean;
    }[];
    const other = own.find((s) => !s.current)!;
    const ended = await phone.request(`/api/profile/sessions/${encodeURIComponent(other.id)}`, {
      method: 'DELETE',
      headers: { 'x-csrf-token': csrf },
    });
    expect(ended.status).toBe(204);
    expect((await laptop.request('/api/session')).status).toBe(401);
    expect(await signInLandsOn(laptop)).toBe('/login');
    expect(await signInLandsOn(phone)).toBe('/application');
  });
});
