import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TestBrowser } from '../identity/support/browser.ts';
import { signInThroughLogin } from '../identity/support/sign-in.ts';
import { up as markMailAppsWithoutPkce } from '../../src/db/migrations/2026_11_28_0300_mail_apps_without_pkce.ts';
import { installBody } from './helpers.ts';

const PASSWORD = 'correct horse battery staple';
const WEBMAIL = 'https://webmail.example.test';
const REDIRECT = `${WEBMAIL}/index.php/login/oauth`;

/**
 * The Mail app against the requests Debian 12's Roundcube (1.6, program/include/rcmail_oauth.php)
 * sends, byte for byte in shape: an authorization request without PKCE, a token request with
 * client_id and client_secret in the body and no code_verifier, and a refresh the same way.
 * The browser test (e2e/roundcube.spec.ts) runs Roundcube itself; this pins each request.
 */
describe('the Mail app signs Roundcube in', () => {
  let mailbox: Mailbox;
  let server: TestApp;
  let origin: string;
  let user: TestUser;
  let mail: { clientId: string; clientSecret: string; configSnippet: string };
  let wiki: { clientId: string };

  beforeAll(async () => {
    mailbox = await Mailbox.start();
    server = await createTestApp({ env: { SMTP_URL: mailbox.url }, listen: true });
    origin = server.config.publicUrl.origin;
    const org = await createOrganizationWithAdmin(server.db);
    user = await createUser(server.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
    const admin = await signInAs(server.db, org.admin);
    const install = async (payload: Record<string, unknown>) => {
      const response = await server.app.inject({
        method: 'POST',
        url: '/api/apps',
        headers: admin.headers,
        payload: installBody(payload),
      });
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json() as {
        app: { clientId: string; configSnippet: string };
        clientSecret: string;
      };
      return {
        clientId: body.app.clientId,
        clientSecret: body.clientSecret,
        configSnippet: body.app.configSnippet,
      };
    };
    mail = await install({
      templateKey: 'mail',
      title: 'Mail',
      launchUrl: WEBMAIL,
      redirectUris: [REDIRECT],
    });
    wiki = await install({});
  });

  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  /** rcmail_oauth::login_redirect(): no code_challenge, no nonce. */
  const roundcubeAuthorizeUrl = (clientId: string, redirectUri: string) =>
    `${origin}/oidc/auth?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      scope: 'openid email profile',
      redirect_uri: redirectUri,
      state: 'rc-state-123',
    })}`;

  const tokenRequest = (form: Record<string, string>) =>
    fetch(`${origin}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });

  it('shows Roundcube’s configuration with the scopes it needs and the mail host', () => {
    expect(mail.configSnippet).toContain(`$config['oauth_client_id'] = '${mail.clientId}';`);
    expect(mail.configSnippet).toContain(`$config['oauth_client_secret'] = '${mail.clientSecret}';`);
    expect(mail.configSnippet).toContain(`$config['oauth_token_uri'] = '${origin}/oidc/token';`);
    expect(mail.configSnippet).toContain("$config['oauth_scope'] = 'openid email profile';");
    expect(mail.configSnippet).toContain(`$config['imap_host'] = 'tls://${server.config.mailHost}:143';`);
  });

  it('issues a code without PKCE, tokens for the body-authenticated request, refreshes them until the user signs out of Atrium', async () => {
    const browser = new TestBrowser(origin);
    const callback = new URL(
      await signInThroughLogin(browser, mailbox, roundcubeAuthorizeUrl(mail.clientId, REDIRECT), {
        email: user.email,
        password: PASSWORD,
      }),
    );
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    expect(callback.searchParams.get('state')).toBe('rc-state-123');

    // rcmail_oauth::request_access_token()
    const granted = await tokenRequest({
      code: callback.searchParams.get('code')!,
      client_id: mail.clientId,
      client_secret: mail.clientSecret,
      redirect_uri: REDIRECT,
      grant_type: 'authorization_code',
    });
    const tokens = (await granted.json()) as Record<string, string | number>;
    expect(granted.status, JSON.stringify(tokens)).toBe(200);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'openid email profile' });
    // A refresh token without offline_access: one that ends with the Atrium session.
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.expires_in).toBeGreaterThan(0);
    // Roundcube takes the user name from the ID token's `email` (oauth_identity_fields), after
    // checking `aud`; it does not verify the signature.
    const idToken = JSON.parse(Buffer.from(String(tokens.id_token).split('.')[1]!, 'base64url').toString());
    expect(idToken).toMatchObject({ aud: mail.clientId, email: user.email });

    // rcmail_oauth::refresh_access_token(), when the hour-long access token runs out.
    const refreshed = await tokenRequest({
      client_id: mail.clientId,
      client_secret: mail.clientSecret,
      refresh_token: String(tokens.refresh_token),
      grant_type: 'refresh_token',
    });
    const renewed = (await refreshed.json()) as Record<string, string>;
    expect(refreshed.status, JSON.stringify(renewed)).toBe(200);
    expect(renewed.access_token).toBeTruthy();
    expect(renewed.access_token).not.toBe(tokens.access_token);

    // The refreshed token still carries the address Dovecot checks (introspection, as the app).
    const introspected = await fetch(`${origin}/oidc/token/introspection`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: renewed.access_token!,
        client_id: mail.clientId,
        client_secret: mail.clientSecret,
      }),
    });
    expect(await introspected.json()).toMatchObject({ active: true, email: user.email });

    // Signing out of Atrium ends webmail too: the next refresh is refused (Roundcube then ends
    // its own session and shows its sign-in page).
    const endSession = await browser.request(
      `${origin}/oidc/session/end?${new URLSearchParams({ id_token_hint: String(tokens.id_token) })}`,
    );
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(endSession.body)?.[1];
    const confirmed = await browser.request(`${origin}/oidc/session/end/confirm`, {
      form: { xsrf: xsrf!, logout: 'yes' },
    });
    expect(confirmed.status, confirmed.body).toBeLessThan(400);
    const afterSignOut = await tokenRequest({
      client_id: mail.clientId,
      client_secret: mail.clientSecret,
      refresh_token: String(renewed.refresh_token),
      grant_type: 'refresh_token',
    });
    expect(afterSignOut.status).toBe(400);
    expect(await afterSignOut.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('still refuses an authorization request without PKCE from any other app', async () => {
    const browser = new TestBrowser(origin);
    const hop = await browser.request(
      roundcubeAuthorizeUrl(wiki.clientId, 'https://wiki.example.com/oidc/callback'),
    );
    expect(hop.location).toContain('error=invalid_request');
    expect(decodeURIComponent(hop.location!)).toMatch(/PKCE/);
  });

  it('lets Mail apps installed before this change sign in without PKCE too (migration)', async () => {
    const flagOf = async (clientId: string) => {
      const row = await server.db
        .selectFrom('oidc_clients')
        .select('metadata')
        .where('client_id', '=', clientId)
        .executeTakeFirstOrThrow();
      return row.metadata.atrium_pkce_optional;
    };
    // As an install before the template said so left it.
    await sql`update oidc_clients set metadata = metadata - 'atrium_pkce_optional'
      where client_id = ${mail.clientId}`.execute(server.db);
    await markMailAppsWithoutPkce(server.db as unknown as Kysely<unknown>);
    expect(await flagOf(mail.clientId)).toBe(true);
    expect(await flagOf(wiki.clientId)).toBeUndefined();
  });
});
