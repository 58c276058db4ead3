import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { TestBrowser } from './support/browser.ts';
import { signedInDevice, signInLandsOn, useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

const PASSWORD = WORLD_PASSWORD;

describe('the life of a console session', () => {
  const world = useSignInWorld({ adminPassword: false });
  let admin: TestSession;

  beforeAll(async () => {
    admin = await signInAs(world.server.db, world.org.admin);
  });

  /** A browser holding only the given console session cookie. */
  function browserWith(sessionCookie: string): TestBrowser {
    const other = new TestBrowser(world.origin);
    other.cookies.set('atrium_session', sessionCookie);
    return other;
  }

  const newUser = async () =>
    createUser(world.server.db, world.org.id, { passwordHash: await hashPassword(PASSWORD) });

  it('signing out ends the SSO session on the server, even if the end-session page is never visited', async () => {
    const user = await newUser();
    const device = await signedInDevice(world, user.email);
    const { csrfToken } = JSON.parse((await device.request('/api/session')).body) as { csrfToken: string };
    const out = await device.request('/api/sso/logout', {
      method: 'POST',
      headers: { 'x-csrf-token': csrfToken },
    });
    expect(out.status).toBe(200);
    // The browser keeps the provider's cookie but never follows the end-session URL (the
    // console-session tests follow it).
    expect(device.cookies.get('_session')).toBeTruthy();
    expect(await signInLandsOn(device)).toBe('/login');
  });

  it('signing in again in the same browser ends the session it had', async () => {
    const user = await newUser();
    const device = await signedInDevice(world, user.email);
    const first = device.cookies.get('atrium_session')!;
    expect(await signInLandsOn(device)).toBe('/application');
    const second = device.cookies.get('atrium_session')!;
    expect(second).not.toBe(first);
    expect((await browserWith(second).request('/api/session')).status).toBe(200);
    expect((await browserWith(first).request('/api/session')).status).toBe(401);
  });

  it("the admin's view lists only live sessions after a suspension and a reactivation", async () => {
    const user = await newUser();
    const device = await signedInDevice(world, user.email);
    const sessionsOf = async () =>
      (await world.server.app.inject({ url: `/api/users/${user.id}`, headers: admin.headers })).json()
        .sessions as unknown[];
    expect(await sessionsOf()).toHaveLength(1);

    const suspend = await world.server.app.inject({
      method: 'POST',
      url: `/api/users/${user.id}/suspend`,
      headers: admin.headers,
    });
    expect(suspend.statusCode).toBe(200);
    expect((await device.request('/api/session')).status).toBe(401);
    // The suspended user's browser tries to sign in again through its SSO cookie.
    expect(await signInLandsOn(device)).toBe('/login');
    const reactivate = await world.server.app.inject({
      method: 'POST',
      url: `/api/users/${user.id}/reactivate`,
      headers: admin.headers,
    });
    expect(reactivate.statusCode).toBe(200);

    expect(await sessionsOf()).toEqual([]);
    expect((await device.request('/api/session')).status).toBe(401);
  });
});
