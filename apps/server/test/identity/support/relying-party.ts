import * as client from 'openid-client';
import { useStarted } from '../../support/use-started.ts';
import { registerTestClient } from './clients.ts';
import { startSignInWorld, WORLD_PASSWORD, type SignInWorld } from './sign-in-world.ts';

export const RP_PASSWORD = WORLD_PASSWORD;

/** A sign-in world (the admin has `RP_PASSWORD`) with an app registered by the organisation. */
export interface RelyingPartyWorld extends SignInWorld {
  /** openid-client's view of the provider, as the registered app (client_secret_basic). */
  rp: client.Configuration;
  registered: { clientId: string; clientSecret: string };
}

interface RelyingPartyOptions {
  redirectUri: string;
  postLogoutRedirectUri?: string;
}

/** The set-up of the identity tests that play an app with openid-client. */
export async function startRelyingParty(options: RelyingPartyOptions): Promise<RelyingPartyWorld> {
  const world = await startSignInWorld();
  const registered = await registerTestClient(world.server.db, world.server.config, {
    organizationId: world.org.id,
    redirectUri: options.redirectUri,
    ...(options.postLogoutRedirectUri ? { postLogoutRedirectUri: options.postLogoutRedirectUri } : {}),
  });
  const rp = await discoverAs(world.origin, registered);
  return { ...world, rp, registered };
}

/** A relying-party world for the tests of a describe block (see `useStarted`). */
export function useRelyingParty(options: RelyingPartyOptions): RelyingPartyWorld {
  return useStarted(() => startRelyingParty(options));
}

/** openid-client's view of the provider at `origin`, as a registered app (client_secret_basic, http). */
export function discoverAs(
  origin: string,
  registered: { clientId: string; clientSecret: string },
): Promise<client.Configuration> {
  return client.discovery(
    new URL(`${origin}/oidc`),
    registered.clientId,
    registered.clientSecret,
    client.ClientSecretBasic(registered.clientSecret),
    { execute: [client.allowInsecureRequests] },
  );
}

/**
 * An authorization request of the app with PKCE and a state (`params` adds redirect_uri, scope…),
 * and `codeGrant` to exchange the callback URL it ends at for tokens.
 */
export async function pkceAuthorization(rp: client.Configuration, params: Record<string, string>) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(rp, {
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...params,
  });
  const codeGrant = (callback: string) =>
    client.authorizationCodeGrant(rp, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
  return { url, verifier, state, codeGrant };
}
