import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { TestBrowser } from './support/browser.ts';
import { RP_PASSWORD, useRelyingParty } from './support/relying-party.ts';
import { signInThroughLogin } from './support/sign-in.ts';
import { pkceAuthorization } from './support/relying-party.ts';

const PASSWORD = RP_PASSWORD;
const REDIRECT = 'https://app.example.test/callback';
const AFTER_LOGOUT = 'https://app.example.test/signed-out';

describe('an openid-client relying party against the running provider', () => {
  const world = useRelyingParty({ redirectUri: REDIRECT, postLogoutRedirectUri: AFTER_LOGOUT });

  it('publishes discovery with code + PKCE S256 only, and a JWKS with the signing key', async () => {
    const metadata = world.rp.serverMetadata();
    expect(metadata.issuer).toBe(`${world.origin}/oidc`);
    expect(metadata.response_types_supported).toEqual(['code']);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.grant_types_supported).not.toContain('implicit');
    expect(metadata.grant_types_supported).not.toContain('password');
    expect(metadata.end_session_endpoint).toBe(`${world.origin}/oidc/session/end`);
    const jwks = (await (await fetch(metadata.jwks_uri!)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('signs in with password and e-mailed code, refreshes, refuses a replayed refresh token and logs out', async () => {
    const browser = new TestBrowser(world.origin);
    const {
      url: authorizeUrl,
      verifier,
      state,
      codeGrant,
    } = await pkceAuthorization(world.rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email profile offline_access',
    });

    const callback = await signInThroughLogin(browser, world.mailbox, authorizeUrl.href, {
      email: world.org.admin.email,
      password: PASSWORD,
    });
    expect(callback.startsWith(REDIRECT)).toBe(true);

    const tokens = await codeGrant(callback);
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeTruthy();
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(world.org.admin.id);
    expect(claims.email).toBe(world.org.admin.email);
    expect(claims.name).toBe('Ada Admin');

    const userinfo = await client.fetchUserInfo(world.rp, tokens.access_token, claims.sub);
    expect(userinfo.email).toBe(world.org.admin.email);

    const refreshed = await client.refreshTokenGrant(world.rp, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    // The rotated-out token is refused, and its replay revokes the whole chain.
    await expect(client.refreshTokenGrant(world.rp, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(client.refreshTokenGrant(world.rp, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    // A second authorization passes straight through: the SSO session exists.
    const again = await browser.follow(
      client.buildAuthorizationUrl(world.rp, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      }).href,
    );
    expect(again.location?.startsWith(REDIRECT)).toBe(true);

    // RP-initiated logout: the end-session page submits itself; then the session is gone.
    const endSession = client.buildEndSessionUrl(world.rp, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: AFTER_LOGOUT,
    });
    const page = await browser.request(endSession.href);
    expect(page.status).toBe(200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)?.[1];
    expect(xsrf).toBeTruthy();
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self' 'sha256-/);
    const confirmed = await browser.request(`${world.origin}/oidc/session/end/confirm`, {
      form: { xsrf: xsrf!, logout: 'yes' },
    });
    expect(confirmed.location?.startsWith(AFTER_LOGOUT)).toBe(true);

    const afterLogout = await browser.follow(authorizeUrl.href, (u) => u.pathname === '/login');
    expect(new URL(afterLogout.location!).pathname).toBe('/login');
  });

  it('refuses an authorization request without PKCE', async () => {
    const browser = new TestBrowser(world.origin);
    const url = client.buildAuthorizationUrl(world.rp, { redirect_uri: REDIRECT, scope: 'openid' });
    const hop = await browser.request(url.href);
    expect(hop.location).toContain('error=invalid_request');
    expect(decodeURIComponent(hop.location!)).toMatch(/PKCE/);
  });

  it('refuses a redirect URI that is not registered exactly', async () => {
    const browser = new TestBrowser(world.origin);
    const url = client.buildAuthorizationUrl(world.rp, {
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
