import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestOrganization } from '../support/fixtures.ts';
import type { Mailbox } from '../support/mailbox.ts';
import { TestBrowser } from './support/browser.ts';
import { RP_PASSWORD, startRelyingParty, type RelyingPartyWorld } from './support/relying-party.ts';
import { signInThroughLogin } from './support/sign-in.ts';

const PASSWORD = RP_PASSWORD;
const REDIRECT = 'https://app.example.test/callback';
const AFTER_LOGOUT = 'https://app.example.test/signed-out';

describe('an openid-client relying party against the running provider', () => {
  let mailbox: Mailbox;
  let org: TestOrganization;
  let rp: client.Configuration;
  let origin: string;

  let world: RelyingPartyWorld;

  beforeAll(async () => {
    world = await startRelyingParty({ redirectUri: REDIRECT, postLogoutRedirectUri: AFTER_LOGOUT });
    ({ mailbox, origin, org, rp } = world);
  });

  afterAll(async () => {
    await world?.close();
  });

  it('publishes discovery with code + PKCE S256 only, and a JWKS with the signing key', async () => {
    const metadata = rp.serverMetadata();
    expect(metadata.issuer).toBe(`${origin}/oidc`);
    expect(metadata.response_types_supported).toEqual(['code']);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.grant_types_supported).not.toContain('implicit');
    expect(metadata.grant_types_supported).not.toContain('password');
    expect(metadata.end_session_endpoint).toBe(`${origin}/oidc/session/end`);
    const jwks = (await (await fetch(metadata.jwks_uri!)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('signs in with password and e-mailed code, refreshes, refuses a replayed refresh token and logs out', async () => {
    const browser = new TestBrowser(origin);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const authorizeUrl = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email profile offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });

    const callback = await signInThroughLogin(browser, mailbox, authorizeUrl.href, {
      email: org.admin.email,
      password: PASSWORD,
    });
    expect(callback.startsWith(REDIRECT)).toBe(true);

    const tokens = await client.authorizationCodeGrant(rp, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeTruthy();
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(org.admin.id);
    expect(claims.email).toBe(org.admin.email);
    expect(claims.name).toBe('Ada Admin');

    const userinfo = await client.fetchUserInfo(rp, tokens.access_token, claims.sub);
    expect(userinfo.email).toBe(org.admin.email);

    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    // The rotated-out token is refused, and its replay revokes the whole chain.
    await expect(client.refreshTokenGrant(rp, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(client.refreshTokenGrant(rp, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    // A second authorization passes straight through: the SSO session exists.
    const again = await browser.follow(
      client.buildAuthorizationUrl(rp, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      }).href,
    );
    expect(again.location?.startsWith(REDIRECT)).toBe(true);

    // RP-initiated logout: the end-session page submits itself; then the session is gone.
    const endSession = client.buildEndSessionUrl(rp, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: AFTER_LOGOUT,
    });
    const page = await browser.request(endSession.href);
    expect(page.status).toBe(200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)?.[1];
    expect(xsrf).toBeTruthy();
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self' 'sha256-/);
    const confirmed = await browser.request(`${origin}/oidc/session/end/confirm`, {
      form: { xsrf: xsrf!, logout: 'yes' },
    });
    expect(confirmed.location?.startsWith(AFTER_LOGOUT)).toBe(true);

    const afterLogout = await browser.follow(authorizeUrl.href, (u) => u.pathname === '/login');
    expect(new URL(afterLogout.location!).pathname).toBe('/login');
  });

  it('refuses an authorization request without PKCE', async () => {
    const browser = new TestBrowser(origin);
    const url = client.buildAuthorizationUrl(rp, { redirect_uri: REDIRECT, scope: 'openid' });
    const hop = await browser.request(url.href);
    expect(hop.location).toContain('error=invalid_request');
    expect(decodeURIComponent(hop.location!)).toMatch(/PKCE/);
  });

  it('refuses a redirect URI that is not registered exactly', async () => {
    const browser = new TestBrowser(origin);
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: `${REDIRECT}/extra`,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const hop = await browser.request(url.href);
    expect(hop.status).toBe(400);
    expect(hop.body).toContain('redirect_uri did not match any of the client');
    expect(hop.body).not.toMatch(/<style|<script/);
  });
});
