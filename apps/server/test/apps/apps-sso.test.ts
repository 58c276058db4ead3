import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { TestBrowser } from '../identity/support/browser.ts';
import { signInThroughLogin } from '../identity/support/sign-in.ts';
import { revokeAppAccessLostByUser } from '../../src/modules/apps/revoke-lost-access.ts';
import { createGroup, installBody } from './helpers.ts';
import { useSignInWorld, WORLD_PASSWORD } from '../identity/support/sign-in-world.ts';

const PASSWORD = WORLD_PASSWORD;
const REDIRECT = 'https://wiki.example.test/oidc/callback';

/**
 * Done-when of issue 6: an openid-client relying party registered by installing an app (through the
 * API) signs a member in end to end; others get the access page and no code; uninstalling revokes.
 */
describe('single sign-on into an installed app', () => {
  const world = useSignInWorld();
  let member: TestUser;
  let outsider: TestUser;
  let appId: string;
  let clientId: string;
  let rp: client.Configuration;

  const authorize = async (scope = 'openid email profile offline_access') => {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT,
      scope,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    return { url: url.href, verifier, state };
  };

  beforeAll(async () => {
    member = await createUser(world.server.db, world.org.id, {
      email: `member-${world.org.siteName}@example.com`,
      passwordHash: world.passwordHash,
    });
    outsider = await createUser(world.server.db, world.org.id, {
      email: `outsider-${world.org.siteName}@example.com`,
      passwordHash: world.passwordHash,
    });
    const staff = await createGroup(world.server.db, world.org.id, 'Staff', [member.id]);

    const admin = await signInAs(world.server.db, world.org.admin);
    const installed = await world.server.app.inject({
      method: 'POST',
      url: '/api/apps',
      headers: admin.headers,
      payload: installBody({ redirectUris: [REDIRECT], openToEveryone: false, groupIds: [staff] }),
    });
    expect(installed.statusCode, installed.body).toBe(201);
    const body = installed.json() as {
      app: { id: string; clientId: string; discoveryUrl: string; tokenEndpointAuthMethod: string };
      clientSecret: string;
    };
    appId = body.app.id;
    clientId = body.app.clientId;
    // Configured exactly as the app's page tells an admin: issuer (discovery), client id, secret.
    expect(body.app.tokenEndpointAuthMethod).toBe('client_secret_post');
    expect(body.app.discoveryUrl).toBe(`${world.origin}/oidc/.well-known/openid-configuration`);
    rp = await client.discovery(
      new URL(`${world.origin}/oidc`),
      clientId,
      body.clientSecret,
      // The wiki template's client posts its secret in the token request, as BookStack does.
      client.ClientSecretPost(body.clientSecret),
      { execute: [client.allowInsecureRequests] },
    );
  });

  /** Codes and grants the provider issued for a user: none for a user the app is closed to. */
  const issuedTo = (userId: string) =>
    world.server.db
      .selectFrom('oidc_payloads')
      .select('id')
      .where('type', 'in', ['AuthorizationCode', 'Grant'])
      .where((eb) => eb(eb.ref('payload', '->>').key('accountId' as never), '=', userId))
      .execute();

  it('signs a member of the app’s group in end to end, with no consent screen, then straight through', async () => {
    const browser = new TestBrowser(world.origin);
    const first = await authorize();
    const callback = await signInThroughLogin(browser, world.mailbox, first.url, {
      email: member.email,
      password: PASSWORD,
    });
    expect(callback.startsWith(`${REDIRECT}?`)).toBe(true);
    const tokens = await client.authorizationCodeGrant(rp, new URL(callback), {
      pkceCodeVerifier: first.verifier,
      expectedState: first.state,
    });
    expect(tokens.claims()).toMatchObject({ sub: member.id, email: member.email, aud: clientId });
    expect(tokens.refresh_token).toBeTruthy();

    // Signed in already: the next authorization goes straight back to the app with a code.
    const second = await authorize('openid');
    const hop = await browser.follow(second.url);
    expect(hop.location?.startsWith(`${REDIRECT}?`)).toBe(true);
    expect(new URL(hop.location!).searchParams.get('code')).toBeTruthy();
  });

  it('shows a signed-in user outside the app’s groups the access page and issues no code', async () => {
    const browser = new TestBrowser(world.origin);
    const { url } = await authorize('openid');
    const end = await signInThroughLogin(
      browser,
      world.mailbox,
      url,
      { email: outsider.email, password: PASSWORD },
      (u) => u.pathname === '/access-denied',
    );
    expect(end).toBe(`${world.origin}/access-denied?app=Wiki`);
    // That console page says "You don't have access to Wiki. Ask your administrator." (e2e/apps.spec.ts).

    // Asking again with the SSO session goes straight to the access page, never to the app.
    const again = await browser.follow(
      (await authorize('openid')).url,
      (u) => u.pathname === '/access-denied',
    );
    expect(again.location).toBe(`${world.origin}/access-denied?app=Wiki`);
    expect(await issuedTo(outsider.id)).toEqual([]);
  });

  it('refuses a user of another organisation who holds the app’s client id', async () => {
    const other = await createOrganizationWithAdmin(world.server.db, {
      passwordHash: await hashPassword(PASSWORD),
    });
    const browser = new TestBrowser(world.origin);
    const { url } = await authorize('openid');
    const end = await signInThroughLogin(
      browser,
      world.mailbox,
      url,
      { email: other.admin.email, password: PASSWORD },
      (u) => u.pathname === '/access-denied',
    );
    expect(end).toBe(`${world.origin}/access-denied?app=Wiki`);
    expect(await issuedTo(other.admin.id)).toEqual([]);
  });

  it('lets the app’s group change take effect at the next authorization', async () => {
    const admin = await signInAs(world.server.db, world.org.admin);
    const opened = await world.server.app.inject({
      method: 'PUT',
      url: `/api/apps/${appId}`,
      headers: admin.headers,
      payload: installBody({ redirectUris: [REDIRECT], openToEveryone: true }),
    });
    expect(opened.statusCode).toBe(200);
    const browser = new TestBrowser(world.origin);
    const { url } = await authorize('openid');
    const callback = await signInThroughLogin(browser, world.mailbox, url, {
      email: outsider.email,
      password: PASSWORD,
    });
    expect(callback.startsWith(`${REDIRECT}?`)).toBe(true);
  });

  it('revokes what a user holds once they may no longer open the app', async () => {
    const admin = await signInAs(world.server.db, world.org.admin);
    const setGroups = async (groupIds: string[]) => {
      const res = await world.server.app.inject({
        method: 'PUT',
        url: `/api/apps/${appId}`,
        headers: admin.headers,
        payload: installBody({ redirectUris: [REDIRECT], openToEveryone: groupIds.length === 0, groupIds }),
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    const signIn = async () => {
      const browser = new TestBrowser(world.origin);
      const { url, verifier, state } = await authorize();
      const callback = await signInThroughLogin(browser, world.mailbox, url, {
        email: member.email,
        password: PASSWORD,
      });
      return client.authorizationCodeGrant(rp, new URL(callback), {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
    };

    // Narrowed to Staff, which the member is in: their refresh token keeps working.
    const staff = await world.server.db
      .selectFrom('groups')
      .select('id')
      .where('organization_id', '=', world.org.id)
      .where('name', '=', 'Staff')
      .executeTakeFirstOrThrow();
    const first = await signIn();
    await setGroups([staff.id]);
    const kept = await client.refreshTokenGrant(rp, first.refresh_token!);

    // The member leaves Staff; the groups area calls revokeAppAccessLostByUser in that change.
    await world.server.db.deleteFrom('group_members').where('user_id', '=', member.id).execute();
    await revokeAppAccessLostByUser(world.server.db, world.org.id, member.id);
    await expect(client.refreshTokenGrant(rp, kept.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    // Back in Staff; then the app moves to a group the member is not in.
    await world.server.db
      .insertInto('group_members')
      .values({ group_id: staff.id, user_id: member.id, organization_id: world.org.id })
      .execute();
    const second = await signIn();
    const contractors = await createGroup(world.server.db, world.org.id, 'Contractors', [outsider.id]);
    await setGroups([contractors]);
    await expect(client.refreshTokenGrant(rp, second.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    await setGroups([]);
  });

  it('after uninstalling, the app’s refresh token fails and nothing it was issued remains', async () => {
    const browser = new TestBrowser(world.origin);
    const { url, verifier, state } = await authorize();
    const callback = await signInThroughLogin(browser, world.mailbox, url, {
      email: member.email,
      password: PASSWORD,
    });
    const tokens = await client.authorizationCodeGrant(rp, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    // Still good before the uninstall.
    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token!);

    const admin = await signInAs(world.server.db, world.org.admin);
    const removed = await world.server.app.inject({
      method: 'DELETE',
      url: `/api/apps/${appId}`,
      headers: admin.headers,
    });
    expect(removed.statusCode).toBe(204);

    await expect(client.refreshTokenGrant(rp, refreshed.refresh_token!)).rejects.toThrow();
    const left = await world.server.db
      .selectFrom('oidc_payloads')
      .select('type')
      .where((eb) => eb(eb.ref('payload', '->>').key('clientId' as never), '=', clientId))
      .execute();
    expect(left).toEqual([]);
    // And the app is no longer there to authorize against.
    const hop = await browser.request((await authorize('openid')).url);
    expect(hop.status).toBe(400);
    expect(hop.body).toContain('invalid_client');
  });
});
