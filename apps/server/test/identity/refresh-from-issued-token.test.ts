import { sql } from 'kysely';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { storedIdOf } from '../../src/oidc/adapter.ts';
import { createUser, type TestUser } from '../support/fixtures.ts';
import { TestBrowser } from './support/browser.ts';
import { RP_PASSWORD, useRelyingParty } from './support/relying-party.ts';
import { signInThroughLogin } from './support/sign-in.ts';

const REDIRECT = 'https://app.example.test/callback';

/**
 * A refresh grant starts from the copy of its token the process kept when it issued it
 * (oidc/issued-tokens.ts). Whatever another process changed since, without this one knowing, the
 * app gets what the database says: each change below is made straight in the database, as another
 * server process would, right before the refresh.
 */
describe('a refresh grant after a change made elsewhere', () => {
  const world = useRelyingParty({ redirectUri: REDIRECT });

  /** A new user of the organisation, signed in to the app: their first tokens. */
  async function signedIn(): Promise<{ user: TestUser; tokens: client.TokenEndpointResponse }> {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(world.rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await signInThroughLogin(new TestBrowser(world.origin), world.mailbox, url.href, {
      email: user.email,
      password: RP_PASSWORD,
    });
    const tokens = await client.authorizationCodeGrant(world.rp, new URL(callback), {
      pkceCodeVerifier: verifier,
    });
    return { user, tokens };
  }

  const claimsOf = (tokens: client.TokenEndpointResponse) =>
    JSON.parse(Buffer.from(tokens.id_token!.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;

  const refusedAsInvalidGrant = { error: 'invalid_grant' };

  it("carries the user's new name, and the next refresh works too", async () => {
    const { user, tokens } = await signedIn();
    // Refreshed once first, so the token refreshed below is one a refresh issued.
    const first = await client.refreshTokenGrant(world.rp, tokens.refresh_token!);
    expect(claimsOf(first).name).toBe('Uma User');
    await world.server.db
      .updateTable('users')
      .set({ first_name: 'Ursula' })
      .where('id', '=', user.id)
      .execute();

    const renamed = await client.refreshTokenGrant(world.rp, first.refresh_token!);
    expect(claimsOf(renamed)).toMatchObject({ sub: user.id, name: 'Ursula User', given_name: 'Ursula' });
    const next = await client.refreshTokenGrant(world.rp, renamed.refresh_token!);
    expect(claimsOf(next).name).toBe('Ursula User');
  });

  it('answers once, with the headers of one answer, when it reads the database again', async () => {
    const { user, tokens } = await signedIn();
    await world.server.db
      .updateTable('users')
      .set({ last_name: 'Umber' })
      .where('id', '=', user.id)
      .execute();
    const answer = await fetch(`${world.origin}/oidc/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${world.registered.clientId}:${world.registered.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
    const body = (await answer.json()) as client.TokenEndpointResponse;
    expect(claimsOf(body).family_name).toBe('Umber');
    expect(body.refresh_token).not.toBe(tokens.refresh_token);
  });

  it("refuses a suspended user's refresh token", async () => {
    const { user, tokens } = await signedIn();
    await world.server.db
      .updateTable('users')
      .set({ status: 'suspended' })
      .where('id', '=', user.id)
      .execute();
    await expect(client.refreshTokenGrant(world.rp, tokens.refresh_token!)).rejects.toMatchObject(
      refusedAsInvalidGrant,
    );
  });

  it('refuses a refresh token whose grant was revoked', async () => {
    const { tokens } = await signedIn();
    const grantId = await grantIdOf(tokens.refresh_token!);
    await sql`delete from oidc_payloads where grant_id = ${grantId}`.execute(world.server.db);
    await expect(client.refreshTokenGrant(world.rp, tokens.refresh_token!)).rejects.toMatchObject(
      refusedAsInvalidGrant,
    );
  });

  it('treats a refresh token used by another process as replayed: the whole grant ends', async () => {
    const { tokens } = await signedIn();
    const grantId = await grantIdOf(tokens.refresh_token!);
    await sql`update oidc_payloads set consumed_at = now()
      where type = 'RefreshToken' and id = ${storedIdOf(tokens.refresh_token!)}`.execute(world.server.db);
    await expect(client.refreshTokenGrant(world.rp, tokens.refresh_token!)).rejects.toMatchObject(
      refusedAsInvalidGrant,
    );
    // As on any replay: the access token issued with it, and the grant, are gone.
    const left = await sql<{ n: number }>`select count(*)::int as n from oidc_payloads
      where grant_id = ${grantId} or (type = 'Grant' and id = ${storedIdOf(grantId)})`.execute(
      world.server.db,
    );
    expect(left.rows[0]!.n).toBe(0);
  });

  it('keeps the scopes of a grant changed since (the new access token carries them)', async () => {
    const { tokens } = await signedIn();
    const grantId = await grantIdOf(tokens.refresh_token!);
    // The user's grant narrowed elsewhere: openid only.
    await sql`update oidc_payloads set payload = jsonb_set(payload, '{openid,scope}', '"openid"')
      where type = 'Grant' and id = ${storedIdOf(grantId)}`.execute(world.server.db);
    const refreshed = await client.refreshTokenGrant(world.rp, tokens.refresh_token!);
    expect(refreshed.scope).toBe('openid');
  });

  async function grantIdOf(refreshToken: string): Promise<string> {
    const row = await world.server.db
      .selectFrom('oidc_payloads')
      .select('grant_id')
      .where('type', '=', 'RefreshToken')
      .where('id', '=', storedIdOf(refreshToken))
      .executeTakeFirstOrThrow();
    return row.grant_id!;
  }
});
