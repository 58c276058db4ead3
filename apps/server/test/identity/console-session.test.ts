import { beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../support/fixtures.ts';
import { TestBrowser } from './support/browser.ts';
import { signInThroughLogin } from './support/sign-in.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

const PASSWORD = WORLD_PASSWORD;

describe('the console session (backend-for-frontend)', () => {
  const world = useSignInWorld();
  let member: TestUser;

  beforeAll(async () => {
    member = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
  });

  async function signIn(browser: TestBrowser, email: string, returnTo = '/dashboard') {
    return signInThroughLogin(
      browser,
      world.mailbox,
      `/api/sso/start?returnTo=${encodeURIComponent(returnTo)}`,
      { email, password: PASSWORD },
      (u) => u.pathname !== '/oidc' && !u.pathname.startsWith('/oidc/') && !u.pathname.startsWith('/api/'),
    );
  }

  it('signs an admin in through /login and returns to the page asked for, with an HttpOnly host-only Lax cookie', async () => {
    const browser = new TestBrowser(world.origin);
    const landed = await signIn(browser, world.org.admin.email, '/users?page=2');
    expect(landed).toBe(`${world.origin}/users?page=2`);
    const cookie = browser.setCookieLog.find((c) => c.startsWith('atrium_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Max-Age=86400/i);
    expect(cookie).not.toMatch(/Secure/i);
    expect(cookie).not.toMatch(/Domain=/i);

    const session = await browser.request('/api/session');
    expect(session.status).toBe(200);
    const body = JSON.parse(session.body);
    expect(body.user).toMatchObject({
      id: world.org.admin.id,
      email: world.org.admin.email,
      firstName: 'Ada',
      lastName: 'Admin',
      name: 'Ada Admin',
      isAdmin: true,
      groups: [{ name: 'Dashboard' }],
    });
    expect(body.organization).toMatchObject({ id: world.org.id, siteName: world.org.siteName });
    expect(body.accountPortalUrl).toBe('/profile');
    expect(body.csrfToken).toEqual(expect.any(String));
    // The browser never holds a token: only the opaque session cookie.
    expect(session.body).not.toMatch(/eyJ/);
  });

  it('gives a member without groups a non-admin session', async () => {
    const browser = new TestBrowser(world.origin);
    await signIn(browser, member.email, '/application');
    const body = JSON.parse((await browser.request('/api/session')).body);
    expect(body.user).toMatchObject({ email: member.email, isAdmin: false, groups: [] });
  });

  it('answers 401 without a session, and refuses a returnTo outside the console', async () => {
    const browser = new TestBrowser(world.origin);
    expect((await browser.request('/api/session')).status).toBe(401);
    const landed = await signIn(browser, member.email, 'https://evil.example/steal');
    expect(landed).toBe(`${world.origin}/`);
  });

  it('sends a replayed or forged callback back to sign-in with a message, not an error page', async () => {
    const browser = new TestBrowser(world.origin);
    await browser.request('/api/sso/start');
    const forged = await browser.request('/api/sso/callback?code=forged&state=wrong');
    expect(forged.status).toBe(303);
    expect(forged.location).toBe(`${world.origin}/login?error=incomplete`);
    // Whatever the callback's URL says, /login gets one of our own codes, never the caller's words.
    await browser.request('/api/sso/start');
    const crafted = await browser.request(
      '/api/sso/callback?error=access_denied&error_description=Call+0800+to+unlock+your+account',
    );
    expect(crafted.location).toBe(`${world.origin}/login?error=cancelled`);
    const noTransaction = await new TestBrowser(world.origin).request('/api/sso/callback?code=x&state=y');
    expect(new URL(noTransaction.location!).pathname).toBe('/login');
  });

  it('starts a fresh session id at every sign-in, passing straight through while the SSO session lasts', async () => {
    const browser = new TestBrowser(world.origin);
    await signIn(browser, member.email);
    const first = browser.cookies.get('atrium_session');
    const again = await browser.follow(
      '/api/sso/start?returnTo=%2Fprofile',
      (u) => u.pathname === '/profile',
    );
    expect(again.location).toBe(`${world.origin}/profile`);
    const second = browser.cookies.get('atrium_session');
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
  });

  it('refuses a sign-out without the CSRF token, then signs out through the provider and lands on sign-in', async () => {
    const browser = new TestBrowser(world.origin);
    await signIn(browser, world.org.admin.email);
    const { csrfToken } = JSON.parse((await browser.request('/api/session')).body);

    const refused = await browser.request('/api/sso/logout', { method: 'POST' });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.code).toBe('csrf_failed');
    expect((await browser.request('/api/session')).status).toBe(200);

    const out = await browser.request('/api/sso/logout', {
      method: 'POST',
      headers: { 'x-csrf-token': csrfToken },
    });
    expect(out.status).toBe(200);
    const { endSessionUrl } = JSON.parse(out.body);
    const end = new URL(endSessionUrl);
    expect(end.pathname).toBe('/oidc/session/end');
    expect(end.searchParams.get('id_token_hint')).toBeTruthy();
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${world.origin}/login`);
    expect(out.setCookies.find((c) => c.startsWith('atrium_session='))).toMatch(/atrium_session=;/);
    expect((await browser.request('/api/session')).status).toBe(401);

    // The end-session page submits itself; the provider session ends and the browser lands on /login.
    const page = await browser.request(endSessionUrl);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)![1]!;
    const confirmed = await browser.request('/oidc/session/end/confirm', { form: { xsrf, logout: 'yes' } });
    expect(confirmed.location).toBe(`${world.origin}/login`);

    // No SSO session is left: starting again asks for the password.
    const again = await browser.follow('/api/sso/start', (u) => u.pathname === '/login');
    expect(new URL(again.location!).pathname).toBe('/login');
  });
});
