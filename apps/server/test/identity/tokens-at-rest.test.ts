import type { Kysely } from 'kysely';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up as hashExistingIds } from '../../src/db/migrations/2026_11_23_0100_hash_oidc_ids.ts';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createAdapterFactory } from '../../src/oidc/adapter.ts';
import { createOrganizationWithAdmin, type TestOrganization } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TestBrowser } from './support/browser.ts';
import { registerTestClient } from './support/clients.ts';
import { signInThroughLogin } from './support/sign-in.ts';

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'https://app.example.test/callback';

describe("the provider's tokens at rest", () => {
  let mailbox: Mailbox;
  let server: TestApp;
  let org: TestOrganization;
  let rp: client.Configuration;

  beforeAll(async () => {
    mailbox = await Mailbox.start();
    server = await createTestApp({ env: { SMTP_URL: mailbox.url }, listen: true });
    org = await createOrganizationWithAdmin(server.db, { passwordHash: await hashPassword(PASSWORD) });
    const registered = await registerTestClient(server.db, server.config, {
      organizationId: org.id,
      redirectUri: REDIRECT,
    });
    rp = await client.discovery(
      new URL(`${server.config.publicUrl.origin}/oidc`),
      registered.clientId,
      registered.clientSecret,
      client.ClientSecretBasic(registered.clientSecret),
      { execute: [client.allowInsecureRequests] },
    );
  });

  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  /** Every stored row as text: its id and its whole payload. */
  const storedRows = async () =>
    (await server.db.selectFrom('oidc_payloads').select(['id', 'payload']).execute()).map(
      (row) => `${row.id} ${JSON.stringify(row.payload)}`,
    );

  it('keeps no code, access token, refresh token or session id in clear, and they still work', async () => {
    const browser = new TestBrowser(server.config.publicUrl.origin);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const authorizeUrl = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const callback = await signInThroughLogin(browser, mailbox, authorizeUrl.href, {
      email: org.admin.email,
      password: PASSWORD,
    });
    const code = new URL(callback).searchParams.get('code')!;
    const sessionId = browser.cookies.get('_session')!;
    expect(code).toBeTruthy();
    expect(sessionId).toBeTruthy();
    const beforeExchange = await storedRows();
    expect(beforeExchange.length).toBeGreaterThan(0);
    for (const row of beforeExchange) {
      expect(row).not.toContain(code);
      expect(row).not.toContain(sessionId);
    }

    const tokens = await client.authorizationCodeGrant(rp, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token!);
    const userinfo = await client.fetchUserInfo(rp, refreshed.access_token, org.admin.id);
    expect(userinfo.email).toBe(org.admin.email);

    const secrets = [code, sessionId, tokens.access_token, tokens.refresh_token!, refreshed.access_token];
    secrets.push(refreshed.refresh_token!);
    for (const row of await storedRows()) {
      for (const secret of secrets) expect(row).not.toContain(secret);
    }
    // The code is spent: a replay is refused (consume found its row by the hash).
    await expect(
      client.authorizationCodeGrant(rp, new URL(callback), {
        pkceCodeVerifier: verifier,
        expectedState: state,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('hashes the ids of rows stored before the upgrade, so their sessions and tokens live on', async () => {
    const adapter = createAdapterFactory(server.db, server.config);
    const legacy = `legacy-session-${Math.random().toString(36).slice(2)}`;
    const UID = 'uid-of-the-legacy-session';
    await server.db
      .insertInto('oidc_payloads')
      .values({
        id: legacy,
        type: 'Session',
        uid: UID,
        payload: JSON.stringify({ jti: legacy, uid: UID, kind: 'Session' }),
      })
      .execute();

    await hashExistingIds(server.db as Kysely<unknown>);

    expect((await storedRows()).join('\n')).not.toContain(legacy);
    expect(await adapter('Session').find(legacy)).toMatchObject({ jti: legacy, uid: UID });
    await adapter('Session').destroy(legacy);
    expect(await adapter('Session').find(legacy)).toBeUndefined();
  });
});
