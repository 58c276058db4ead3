import type { Kysely } from 'kysely';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { up as hashExistingIds } from '../../src/db/migrations/2026_11_23_0100_hash_oidc_ids.ts';
import { createAdapterFactory, storedIdOf } from '../../src/oidc/adapter.ts';
import { TestBrowser } from './support/browser.ts';
import { signInThroughLogin, uidOf } from './support/sign-in.ts';
import { useRelyingParty } from './support/relying-party.ts';
import { pkceAuthorization } from './support/relying-party.ts';

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'https://app.example.test/callback';

describe("the provider's tokens at rest", () => {
  const world = useRelyingParty({ redirectUri: REDIRECT });

  /** Every stored row as text: its id and its whole payload. */
  const storedRows = async () =>
    (await world.server.db.selectFrom('oidc_payloads').select(['id', 'payload']).execute()).map(
      (row) => `${row.id} ${JSON.stringify(row.payload)}`,
    );

  it('keeps no code, access token, refresh token or session id in clear, and they still work', async () => {
    const browser = new TestBrowser(world.server.config.publicUrl.origin);
    const { url: authorizeUrl, codeGrant } = await pkceAuthorization(world.rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email offline_access',
    });
    const callback = await signInThroughLogin(browser, world.mailbox, authorizeUrl.href, {
      email: world.org.admin.email,
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

    const tokens = await codeGrant(callback);
    const refreshed = await client.refreshTokenGrant(world.rp, tokens.refresh_token!);
    const userinfo = await client.fetchUserInfo(world.rp, refreshed.access_token, world.org.admin.id);
    expect(userinfo.email).toBe(world.org.admin.email);

    const secrets = [code, sessionId, tokens.access_token, tokens.refresh_token!, refreshed.access_token];
    secrets.push(refreshed.refresh_token!);
    for (const row of await storedRows()) {
      for (const secret of secrets) expect(row).not.toContain(secret);
    }
    // The code is spent: a replay is refused (consume found its row by the hash).
    await expect(codeGrant(callback)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('keeps the session id out of an interaction a signed-in browser starts, and that sign-in completes', async () => {
    const browser = new TestBrowser(world.server.config.publicUrl.origin);
    const credentials = { email: world.org.admin.email, password: PASSWORD };
    const first = await pkceAuthorization(world.rp, { redirect_uri: REDIRECT, scope: 'openid' });
    await signInThroughLogin(browser, world.mailbox, first.url.href, credentials);
    const sessionId = browser.cookies.get('_session')!;
    expect(sessionId).toBeTruthy();

    // Signed in: the provider copies the session (with its id) into the new interaction.
    const again = await pkceAuthorization(world.rp, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      prompt: 'login',
    });
    const toLogin = await browser.follow(again.url.href, (u) => u.pathname === '/login');
    const uid = uidOf(toLogin.location);
    const interaction = await world.server.db
      .selectFrom('oidc_payloads')
      .select('payload')
      .where('type', '=', 'Interaction')
      .where('id', '=', storedIdOf(uid))
      .executeTakeFirstOrThrow();
    const stored = interaction.payload as { session?: { accountId?: string; uid?: string } };
    expect(stored.session).toMatchObject({ accountId: world.org.admin.id, uid: expect.any(String) });
    for (const row of await storedRows()) expect(row).not.toContain(sessionId);

    const after = world.mailbox.count;
    const password = await browser.request(`/api/interactions/${uid}/password`, { json: credentials });
    expect(password.status, password.body).toBe(200);
    const code = await world.mailbox.waitForCode(credentials.email, { after });
    const done = await browser.request(`/api/interactions/${uid}/code`, { json: { code } });
    expect(done.status, done.body).toBe(200);
    const { redirectTo } = JSON.parse(done.body) as { redirectTo: string };
    const callback = await browser.follow(redirectTo);
    expect(callback.location).toMatch(/^https:\/\/app\.example\.test\/callback\?code=/);
    expect((await again.codeGrant(callback.location!)).access_token).toBeTruthy();
  });

  it('hashes the ids of rows stored before the upgrade, so their sessions and tokens live on', async () => {
    const adapter = createAdapterFactory(world.server.db, world.server.config);
    const legacy = `legacy-session-${Math.random().toString(36).slice(2)}`;
    const UID = 'uid-of-the-legacy-session';
    await world.server.db
      .insertInto('oidc_payloads')
      .values({
        id: legacy,
        type: 'Session',
        uid: UID,
        payload: JSON.stringify({ jti: legacy, uid: UID, kind: 'Session' }),
      })
      .execute();

    await hashExistingIds(world.server.db as Kysely<unknown>);

    expect((await storedRows()).join('\n')).not.toContain(legacy);
    expect(await adapter('Session').find(legacy)).toMatchObject({ jti: legacy, uid: UID });
    await adapter('Session').destroy(legacy);
    expect(await adapter('Session').find(legacy)).toBeUndefined();
  });
});
