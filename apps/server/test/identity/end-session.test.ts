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

// Ending a session from the user's page (admin) or /profile (the user) signs that device out for
// real: it cannot pass straight back in through single sign-on, while other devices stay signed in.

const PASSWORD = 'correct horse battery staple';
const leavesProviderAndApi = (u: URL) => !u.pathname.startsWith('/oidc') && !u.pathname.startsWith('/api/');

describe('ending a session', () => {
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

  async function sessionsOf(userId: string): Promise<{ id: string; lastSeenAt: string }[]> {
    const res = await server.app.inject({ url: `/api/users/${userId}`, headers: admin.headers });
    return res.json().sessions;
  }

  /** Where the device lands when it asks to sign in: straight back (SSO) or the sign-in page. */
  async function signInLandsOn(device: TestBrowser): Promise<string> {
    const hop = await device.follow('/api/sso/start?returnTo=%2Fapplication', (u) => u.pathname === '/login');
    return new URL(hop.location ?? hop.url).pathname;
  }

  it('an admin ends a device: it must sign in again with password and code; the other stays', async () => {
    const user = await createUser(server.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
    const laptop = await signedInDevice(user.email);
    const phone = await signedInDevice(user.email);
    // Both devices pass straight through single sign-on while their sessions last.
    expect(await signInLandsOn(phone)).toBe('/application');

    const sessions = await sessionsOf(user.id);
    expect(sessions).toHaveLength(2); // the laptop and the phone (its pass-through replaced its session)
    const laptopSession = (
      await server.db
        .selectFrom('console_sessions')
        .select('id')
        .where('user_id', '=', user.id)
        .orderBy('created_at')
        .executeTakeFirstOrThrow()
    ).id;
    const ended = await server.app.inject({
      method: 'DELETE',
      url: `/api/users/${user.id}/sessions/${encodeURIComponent(laptopSession)}`,
      headers: admin.headers,
    });
    expect(ended.statusCode).toBe(200);

    expect((await laptop.request('/api/session')).status).toBe(401);
    expect(await signInLandsOn(laptop)).toBe('/login');
    expect((await phone.request('/api/session')).status).toBe(200);
    expect(await signInLandsOn(phone)).toBe('/application');

    const log = await server.app.inject({ url: '/api/activity?kind=user', headers: admin.headers });
    expect(log.json().items[0]).toMatchObject({ action: 'user.session_ended', target: { id: user.id } });
  });

  it('a user ends one of their own devices from /profile with the same effect', async () => {
    const user = await createUser(server.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
    const laptop = await signedInDevice(user.email);
    const phone = await signedInDevice(user.email);
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
