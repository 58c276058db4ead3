import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGroup } from '../apps/helpers.ts';
import { createOrganizationWithAdmin, createUser, type TestUser } from '../support/fixtures.ts';
import { TestBrowser } from './support/browser.ts';
import { registerTestClient } from './support/clients.ts';
import { signInThroughLogin } from './support/sign-in.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

// What apps we did not write need from the provider: groups, introspection, honest discovery,
// refresh tokens that outlive sign-out when asked for, and the way back to the app.

const PASSWORD = WORLD_PASSWORD;
const REDIRECT = 'https://app.example.test/callback';
const AFTER_LOGOUT = 'https://app.example.test/signed-out';
const leavesProvider = (u: URL) => !u.pathname.startsWith('/oidc') && !u.pathname.startsWith('/api/');

describe('apps we did not write, through openid-client', () => {
  const world = useSignInWorld();
  let member: TestUser;
  let rp: client.Configuration;
  let other: client.Configuration;
  let service: client.Configuration;

  async function relyingParty(
    organizationId: string | null,
    auth: 'client_secret_basic' | 'client_secret_post' = 'client_secret_basic',
  ): Promise<client.Configuration> {
    const registered = await registerTestClient(world.server.db, world.server.config, {
      organizationId,
      redirectUri: REDIRECT,
      postLogoutRedirectUri: AFTER_LOGOUT,
      tokenEndpointAuthMethod: auth,
    });
    const authMethod =
      auth === 'client_secret_post'
        ? client.ClientSecretPost(registered.clientSecret)
        : client.ClientSecretBasic(registered.clientSecret);
    return client.discovery(
      new URL(`${world.origin}/oidc`),
      registered.clientId,
      registered.clientSecret,
      authMethod,
      {
        execute: [client.allowInsecureRequests],
      },
    );
  }

  async function authorizeUrl(config: client.Configuration, params: Record<string, string>) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...params,
    });
    return { url: url.href, verifier, state };
  }

  /** A new user for each sign-in: sign-in codes are limited per address. */
  const someone = () => createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });

  /** A fresh browser signed in to `config` as `user`, with the tokens of that sign-in. */
  async function signIn(config: client.Configuration, user: TestUser, scope: string) {
    const browser = new TestBrowser(world.origin);
    const request = await authorizeUrl(config, { scope });
    const callback = await signInThroughLogin(browser, world.mailbox, request.url, {
      email: user.email,
      password: PASSWORD,
    });
    const tokens = await client.authorizationCodeGrant(config, new URL(callback), {
      pkceCodeVerifier: request.verifier,
      expectedState: request.state,
    });
    return { browser, tokens };
  }

  /** RP-initiated logout with the ID token as hint, confirmed as the sign-out page does. */
  async function logOut(browser: TestBrowser, config: client.Configuration, idToken: string, to?: string) {
    const url = client.buildEndSessionUrl(config, {
      id_token_hint: idToken,
      ...(to ? { post_logout_redirect_uri: to } : {}),
    });
    const page = await browser.request(url.href);
    expect(page.status, page.body).toBe(200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)![1]!;
    const confirmed = await browser.request(`${world.origin}/oidc/session/end/confirm`, {
      form: { xsrf, logout: 'yes' },
    });
    return { page, confirmed };
  }

  beforeAll(async () => {
    member = await createUser(world.server.db, world.org.id, {
      passwordHash: world.passwordHash,
      firstName: 'Mia',
      lastName: 'Member',
    });
    await createGroup(world.server.db, world.org.id, 'Sales', [member.id]);
    await createGroup(world.server.db, world.org.id, 'Engineering', [member.id, world.org.admin.id]);
    await createGroup(world.server.db, world.org.id, 'Board', [world.org.admin.id]);
    rp = await relyingParty(world.org.id);
    const otherOrg = await createOrganizationWithAdmin(world.server.db);
    other = await relyingParty(otherOrg.id);
    service = await relyingParty(null);
  });

  it('discovery lists the groups scope and claim, introspection, and only the usable client authentications', () => {
    const metadata = rp.serverMetadata();
    expect(metadata.scopes_supported).toContain('groups');
    expect(metadata.claims_supported).toContain('groups');
    expect(metadata.introspection_endpoint).toBe(`${world.origin}/oidc/token/introspection`);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual([
      'client_secret_basic',
      'client_secret_post',
    ]);
  });

  it('puts the names of the user’s groups in the ID token and userinfo when the app asks for groups', async () => {
    const { tokens } = await signIn(rp, member, 'openid email groups');
    const claims = tokens.claims()!;
    expect(claims.groups).toEqual(['Engineering', 'Sales']);
    const userinfo = await client.fetchUserInfo(rp, tokens.access_token, claims.sub);
    expect(userinfo.groups).toEqual(['Engineering', 'Sales']);

    const without = await signIn(rp, member, 'openid email');
    expect(without.tokens.claims()).not.toHaveProperty('groups');
    const plainInfo = await client.fetchUserInfo(rp, without.tokens.access_token, member.id);
    expect(plainInfo).not.toHaveProperty('groups');
  });

  it('introspects a token for the app it was issued to and for Atrium’s services, never for another app', async () => {
    const user = await someone();
    const { tokens } = await signIn(rp, user, 'openid email');
    const own = await client.tokenIntrospection(rp, tokens.access_token);
    expect(own).toMatchObject({ active: true, client_id: rp.clientMetadata().client_id, sub: user.id });
    expect(String(own.scope).split(' ')).toEqual(expect.arrayContaining(['openid', 'email']));

    const byService = await client.tokenIntrospection(service, tokens.access_token);
    expect(byService).toMatchObject({ active: true, sub: user.id });

    const byOtherApp = await client.tokenIntrospection(other, tokens.access_token);
    expect(byOtherApp).toEqual({ active: false });

    // Unauthenticated callers are refused outright.
    const anonymous = await fetch(`${world.origin}/oidc/token/introspection`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: rp.clientMetadata().client_id }),
    });
    expect(anonymous.status).toBe(401);
    // Without even a client_id: 401 invalid_client too (docs/app-catalog.md), not 400 invalid_request.
    const nobody = await fetch(`${world.origin}/oidc/token/introspection`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token }),
    });
    expect(nobody.status).toBe(401);
    expect(await nobody.json()).toEqual({
      error: 'invalid_client',
      error_description: 'client authentication failed',
    });
  });

  it('accepts either client_secret_basic or client_secret_post from every app, as discovery says', async () => {
    const { tokens } = await signIn(rp, await someone(), 'openid offline_access');
    const registered = rp.clientMetadata();
    // client_secret_post: the client's id and secret in the form body.
    const refreshWithSecretInBody = (secret: string) =>
      fetch(`${world.origin}/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token!,
          client_id: registered.client_id,
          client_secret: secret,
        }),
      });
    const asPost = await refreshWithSecretInBody(String(registered.client_secret));
    expect(asPost.status).toBe(200);
    expect(await asPost.json()).toMatchObject({ token_type: 'Bearer' });
    // A wrong secret is refused either way.
    const wrong = await refreshWithSecretInBody('not-the-secret');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });

    const postClient = await relyingParty(world.org.id, 'client_secret_post');
    const viaPost = await signIn(postClient, await someone(), 'openid');
    expect(viaPost.tokens.access_token).toBeTruthy();
  });

  it('grants offline_access without a consent screen: that refresh token outlives the Atrium sign-out', async () => {
    const offline = await signIn(rp, await someone(), 'openid offline_access');
    expect(offline.tokens.scope?.split(' ')).toContain('offline_access');
    expect(offline.tokens.refresh_token).toBeTruthy();
    await logOut(offline.browser, rp, offline.tokens.id_token!, AFTER_LOGOUT);
    const refreshed = await client.refreshTokenGrant(rp, offline.tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();

    // Without offline_access the app still gets a refresh token, which ends with the SSO session.
    const online = await signIn(rp, await someone(), 'openid');
    expect(online.tokens.refresh_token).toBeTruthy();
    await logOut(online.browser, rp, online.tokens.id_token!, AFTER_LOGOUT);
    await expect(client.refreshTokenGrant(rp, online.tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('answers prompt=none with access_denied for a signed-in user the app is closed to', async () => {
    const { browser } = await signIn(rp, await someone(), 'openid');
    const request = await authorizeUrl(other, { scope: 'openid', prompt: 'none' });
    const hop = await browser.follow(request.url, leavesProvider);
    const answer = new URL(hop.location!);
    expect(answer.origin + answer.pathname).toBe(REDIRECT);
    expect(answer.searchParams.get('error')).toBe('access_denied');
    expect(answer.searchParams.get('code')).toBeNull();
  });

  it('lets the form_post page post to the registered redirect URI and nowhere else', async () => {
    const { browser } = await signIn(rp, await someone(), 'openid');
    const request = await authorizeUrl(rp, { scope: 'openid', response_mode: 'form_post' });
    const page = await browser.request(request.url);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<form method="post" action="${REDIRECT}">`);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(new RegExp(`form-action 'self' ${REDIRECT.replace(/[./]/g, '\\$&')}(;|$)`));
    expect(csp).toMatch(/default-src 'self'/);
    // Anything else keeps the strict policy.
    const plain = await browser.request(`${world.origin}/oidc/.well-known/openid-configuration`);
    expect(plain.headers.get('content-security-policy')).toMatch(/form-action 'self'(;|$)/);
  });

  it('lets the sign-out page continue to the registered post-logout URI', async () => {
    const { browser, tokens } = await signIn(rp, await someone(), 'openid');
    const { page, confirmed } = await logOut(browser, rp, tokens.id_token!, AFTER_LOGOUT);
    expect(page.headers.get('content-security-policy')).toMatch(
      new RegExp(`form-action 'self' ${AFTER_LOGOUT.replace(/[./]/g, '\\$&')}(;|$)`),
    );
    expect(confirmed.location?.startsWith(AFTER_LOGOUT)).toBe(true);
  });

  it('still signs out when the app names a post-logout URI it never registered, and says so', async () => {
    const { browser, tokens } = await signIn(rp, await someone(), 'openid');
    const { page, confirmed } = await logOut(browser, rp, tokens.id_token!, 'https://evil.example.test/');
    expect(page.headers.get('content-security-policy')).toMatch(/form-action 'self'(;|$)/);
    expect(confirmed.location).toBe(`${world.origin}/oidc/session/end/success`);
    const signedOut = await browser.request(confirmed.location!);
    expect(signedOut.body).toContain('You are signed out');
    // The SSO session is gone: the next authorization asks for a password again.
    const again = await authorizeUrl(rp, { scope: 'openid' });
    const hop = await browser.follow(again.url, (u) => u.pathname === '/login');
    expect(new URL(hop.location!).pathname).toBe('/login');
  });
});
