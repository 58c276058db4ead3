import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { issueSignInTicket } from '../../src/modules/auth/sign-in/sign-in-tickets.ts';
import { checkClientAccess } from '../../src/oidc/client-access.ts';
import { CONSOLE_CLIENT_ID } from '../../src/oidc/console-client.ts';
import { createOrganizationWithAdmin, type TestOrganization } from '../support/fixtures.ts';
import { TestBrowser } from './support/browser.ts';
import { discoverAs } from './support/relying-party.ts';
import { registerTestClient } from './support/clients.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';
import { leavesProviderAndApi, signInToConsole } from './support/sign-in.ts';

const PASSWORD = WORLD_PASSWORD;
const REDIRECT = 'https://wiki.example.test/callback';

describe('who may sign in where', () => {
  const world = useSignInWorld();
  let orgA: TestOrganization;
  let orgB: TestOrganization;

  beforeAll(async () => {
    orgA = world.org;
    orgB = await createOrganizationWithAdmin(world.server.db, { passwordHash: world.passwordHash });
  });

  it('opens the console to every active user and an app only to its organisation', async () => {
    const app = await registerTestClient(world.server.db, world.server.config, {
      organizationId: orgB.id,
      redirectUri: REDIRECT,
      name: 'Team wiki',
    });
    expect(
      await checkClientAccess(world.server.db, { userId: orgA.admin.id, clientId: CONSOLE_CLIENT_ID }),
    ).toEqual({ allowed: true });
    expect(
      await checkClientAccess(world.server.db, { userId: orgB.admin.id, clientId: app.clientId }),
    ).toEqual({
      allowed: true,
    });
    expect(
      await checkClientAccess(world.server.db, { userId: orgA.admin.id, clientId: app.clientId }),
    ).toEqual({
      allowed: false,
      appName: 'Team wiki',
    });
    expect(
      await checkClientAccess(world.server.db, { userId: orgA.admin.id, clientId: 'no-such-client' }),
    ).toMatchObject({ allowed: false });
  });

  it('shows a signed-in user of another organisation that they have no access to the app, and issues no code', async () => {
    const app = await registerTestClient(world.server.db, world.server.config, {
      organizationId: orgB.id,
      redirectUri: REDIRECT,
      name: 'Team wiki',
    });
    const rp = await discoverAs(world.origin, app);
    const browser = new TestBrowser(world.origin);
    await signInToConsole(browser, world.mailbox, { email: orgA.admin.email, password: PASSWORD });

    const authorize = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const hop = await browser.follow(authorize.href, (u) => u.pathname === '/login');
    expect(hop.url).toBe(`${world.origin}/access-denied?app=Team+wiki`);
    expect(hop.status).toBe(200);
  });

  it('sends a browser nobody is signed in on from the sign-in start straight to the sign-in page', async () => {
    const browser = new TestBrowser(world.origin);
    // The start asks the provider itself: one redirect, to the page, with the provider's cookies.
    const start = await browser.request('/api/sso/start');
    expect(start.status).toBe(302);
    const login = new URL(start.location!, world.origin);
    expect(login.pathname).toBe('/login');
    // The interaction's cookie keeps the path of the page's API calls, which it must reach.
    const uid = login.searchParams.get('uid');
    expect(start.setCookies.find((c) => c.startsWith('_interaction='))).toContain(
      `path=/api/interactions/${uid}`,
    );
    expect(start.setCookies.some((c) => c.startsWith('atrium_sso='))).toBe(true);
    const state = await browser.request(`/api/interactions/${uid}/state`);
    expect(JSON.parse(state.body)).toMatchObject({ stage: 'password' });
  });

  it('signs a user in with a single-use ticket, without password or code', async () => {
    const ticket = await issueSignInTicket(world.server.db, orgA.admin.id);
    const browser = new TestBrowser(world.origin);
    // The cookie that comes with a ticket (sign-up, invitation answers) binds it to this browser.
    browser.cookies.set('atrium_ticket', ticket);
    const before = world.mailbox.count;
    const landed = await browser.follow(
      `/api/sso/start?ticket=${ticket}&returnTo=%2Fsetup`,
      leavesProviderAndApi,
    );
    expect(landed.location).toBe(`${world.origin}/setup`);
    expect(JSON.parse((await browser.request('/api/session')).body).user.id).toBe(orgA.admin.id);
    // No code was sent (a notice of an earlier test's sign-in may still arrive meanwhile).
    expect(world.mailbox.messages.slice(before).filter((m) => /sign-in code/.test(m.subject))).toEqual([]);

    // Used once: in a fresh browser the same ticket leads to the sign-in page.
    const again = await new TestBrowser(world.origin).follow(
      `/api/sso/start?ticket=${ticket}`,
      (u) => u.pathname === '/login',
    );
    expect(new URL(again.location!).pathname).toBe('/login');
  });

  it("ends a suspended user's console and SSO sessions at once", async () => {
    const passwordHash = await hashPassword(PASSWORD);
    const org = await createOrganizationWithAdmin(world.server.db, { passwordHash });
    const browser = new TestBrowser(world.origin);
    await signInToConsole(browser, world.mailbox, { email: org.admin.email, password: PASSWORD });
    expect((await browser.request('/api/session')).status).toBe(200);

    await world.server.db
      .updateTable('users')
      .set({ status: 'suspended' })
      .where('id', '=', org.admin.id)
      .execute();

    expect((await browser.request('/api/session')).status).toBe(401);
    // The provider no longer knows the account: a new sign-in asks for the password again.
    const again = await browser.follow('/api/sso/start', (u) => u.pathname === '/login');
    expect(new URL(again.location!).pathname).toBe('/login');
  });

  it("signs in the ticket's user even in a browser signed in as someone else", async () => {
    const browser = new TestBrowser(world.origin);
    await signInToConsole(browser, world.mailbox, { email: orgA.admin.email, password: PASSWORD });
    const ticket = await issueSignInTicket(world.server.db, orgB.admin.id);
    browser.cookies.set('atrium_ticket', ticket);
    // The provider first ends the other user's SSO session with a self-submitting form, as a
    // browser runs it (its script's hash is in the page's CSP).
    const switching = await browser.follow(
      `/api/sso/start?ticket=${ticket}&returnTo=%2Fsetup`,
      leavesProviderAndApi,
    );
    expect(switching.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/);
    const action = /<form method="post" action="([^"]+)"/.exec(switching.body)![1]!;
    const inputs = Object.fromEntries(
      [...switching.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)].map((m) => [
        m[1]!,
        m[2]!,
      ]),
    );
    const submitted = await browser.request(action.replaceAll('&amp;', '&'), { form: inputs });
    const landed = await browser.follow(submitted.location!, leavesProviderAndApi);
    expect(landed.location).toBe(`${world.origin}/setup`);
    expect(JSON.parse((await browser.request('/api/session')).body).user.id).toBe(orgB.admin.id);
  });
});
