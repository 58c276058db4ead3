import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
  type TestSession,
} from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TestBrowser } from './support/browser.ts';
import { signInThroughLogin } from './support/sign-in.ts';

const PASSWORD = 'correct horse battery staple';
const leavesProviderAndApi = (u: URL) => !u.pathname.startsWith('/oidc') && !u.pathname.startsWith('/api/');

describe('the life of a console session', () => {
  let mailbox: Mailbox;
  let server: TestApp;
  let org: TestOrganization;
  let admin: TestSession;
  let origin: string;

  beforeAll(async () => {
    mailbox = await Mailbox.start();
    server = await createTestApp({ env: { SMTP_URL: mailbox.url }, listen: true });
    origin = server.config.publicUrl.origin;
    org = await createOrganizationWithAdmin(server.db);
    admin = await signInAs(server.db, org.admin);
  });

  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  async function signedInDevice(email: string): Promise<TestBrowser> {
    const device = new TestBrowser(origin);
    await signInThroughLogin(
      device,
      mailbox,
      '/api/sso/start',
      { email, password: PASSWORD },
      leavesProviderAndApi,
    );
    expect((await device.request('/api/session')).status).toBe(200);
    return device;
  }

  /** Where the device lands when it asks to sign in: straight back (SSO) or the sign-in page. */
  async function signInLandsOn(device: TestBrowser): Promise<string> {
    const hop = await device.follow('/api/sso/start?returnTo=%2Fapplication', (u) => u.pathname === '/login');
    return new URL(hop.location ?? hop.url).pathname;
  }

  /** A browser holding only the given console session cookie. */
  function browserWith(sessionCookie: string): TestBrowser {
    const other = new TestBrowser(origin);
    other.cookies.set('atrium_session', sessionCookie);
    return other;
  }

  const newUser = async () => createUser(server.db, org.id, { passwordHash: await hashPassword(PASSWORD) });

  it('signing out ends the SSO session on the server, even if the end-session page is never visited', async () => {
    const user = await newUser();
    const device = await signedInDevice(user.email);
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
    const device = await signedInDevice(user.email);
    const first = device.cookies.get('atrium_session')!;
    expect(await signInLandsOn(device)).toBe('/application');
    const second = device.cookies.get('atrium_session')!;
    expect(second).not.toBe(first);
    expect((await browserWith(second).request('/api/session')).status).toBe(200);
    expect((await browserWith(first).request('/api/session')).status).toBe(401);
  });

  it("the admin's view lists only live sessions after a suspension and a reactivation", async () => {
    const user = await newUser();
    const device = await signedInDevice(user.email);
    const sessionsOf = async () =>
      (await server.app.inject({ url: `/api/users/${user.id}`, headers: admin.headers })).json()
        .sessions as unknown[];
    expect(await sessionsOf()).toHaveLength(1);

    const suspend = await server.app.inject({
      method: 'POST',
      url: `/api/users/${user.id}/suspend`,
      headers: admin.headers,
    });
    expect(suspend.statusCode).toBe(200);
    expect((await device.request('/api/session')).status).toBe(401);
    // The suspended user's browser tries to sign in again through its SSO cookie.
    expect(await signInLandsOn(device)).toBe('/login');
    const reactivate = await server.app.inject({
      method: 'POST',
      url: `/api/users/${user.id}/reactivate`,
      headers: admin.headers,
    });
    expect(reactivate.statusCode).toBe(200);

    expect(await sessionsOf()).toEqual([]);
    expect((await device.request('/api/session')).status).toBe(401);
  });
});
