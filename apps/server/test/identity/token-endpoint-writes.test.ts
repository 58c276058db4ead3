import { sql } from 'kysely';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { TestBrowser } from './support/browser.ts';
import { RP_PASSWORD, useRelyingParty } from './support/relying-party.ts';
import { signInThroughLogin } from './support/sign-in.ts';

const PASSWORD = RP_PASSWORD;
const REDIRECT = 'https://app.example.test/callback';

/**
 * A token endpoint request stores its writes in one statement after the provider has decided
 * (oidc/write-batch.ts): two requests with the same code or refresh token at the same moment must
 * still give tokens to one of them only, the other is treated as a replay, and a failed write
 * leaves the old token as it was.
 */
describe("the token endpoint's writes", () => {
  const world = useRelyingParty({ redirectUri: REDIRECT });

  /** Signs in from a new browser and returns the callback URL and the PKCE verifier. */
  async function authorize() {
    const browser = new TestBrowser(world.origin);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(world.rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await signInThroughLogin(browser, world.mailbox, url.href, {
      email: world.org.admin.email,
      password: PASSWORD,
    });
    return { callback: new URL(callback), verifier };
  }

  const refusedAsInvalidGrant = (outcome: PromiseSettledResult<unknown>) =>
    outcome.status === 'rejected' && (outcome.reason as { error?: string }).error === 'invalid_grant';

  it('gives tokens for a refresh token once, and ends the grant for both', async () => {
    for (let round = 0; round < 3; round++) {
      // A fresh chain each round: the race below ends the grant it is run on.
      const { callback, verifier } = await authorize();
      const start = await client.authorizationCodeGrant(world.rp, callback, { pkceCodeVerifier: verifier });
      const outcomes = await Promise.allSettled([
        client.refreshTokenGrant(world.rp, start.refresh_token!),
        client.refreshTokenGrant(world.rp, start.refresh_token!),
      ]);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      expect(won).toHaveLength(1);
      expect(outcomes.filter(refusedAsInvalidGrant)).toHaveLength(1);
      // As with any replay, the grant is gone: the winner's new refresh token is refused too.
      const winner = (won[0] as PromiseFulfilledResult<client.TokenEndpointResponse>).value;
      await expect(client.refreshTokenGrant(world.rp, winner.refresh_token!)).rejects.toMatchObject({
        error: 'invalid_grant',
      });
    }
  });

  it('exchanges an authorization code once', async () => {
    for (let round = 0; round < 3; round++) {
      const { callback, verifier } = await authorize();
      const outcomes = await Promise.allSettled([
        client.authorizationCodeGrant(world.rp, callback, { pkceCodeVerifier: verifier }),
        client.authorizationCodeGrant(world.rp, callback, { pkceCodeVerifier: verifier }),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.filter(refusedAsInvalidGrant)).toHaveLength(1);
    }
  });

  it('stores nothing when its writes fail: server_error, and the refresh token still works after', async () => {
    const { callback, verifier } = await authorize();
    const tokens = await client.authorizationCodeGrant(world.rp, callback, { pkceCodeVerifier: verifier });
    // Reads and the refresh token's own writes still work; storing the access token fails.
    await sql`alter table oidc_payloads add constraint refuse_access_tokens
      check (type <> 'AccessToken') not valid`.execute(world.server.db);
    try {
      const failed = await client.refreshTokenGrant(world.rp, tokens.refresh_token!).then(
        () => undefined,
        (error: unknown) => error as { cause?: unknown },
      );
      // openid-client does not read a 500's body; the answer is the provider's own JSON error.
      const answer = failed?.cause as Response;
      expect(answer.status).toBe(500);
      expect(await answer.json()).toMatchObject({ error: 'server_error' });
    } finally {
      await sql`alter table oidc_payloads drop constraint refuse_access_tokens`.execute(world.server.db);
    }
    // Not consumed by the failed request (the writes are one statement): the app stays signed in.
    const refreshed = await client.refreshTokenGrant(world.rp, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  });
});
