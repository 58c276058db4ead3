import type { FastifyInstance } from 'fastify';
import * as client from 'openid-client';
import type { Config } from '../../../config.ts';
import { inProcessFetch } from '../../../oidc/in-process-fetch.ts';
import type { ConsoleClient } from '../../../oidc/console-client.ts';
import { issuerOf } from '../../../oidc/provider.ts';

/**
 * The console as a confidential relying party of its own provider, through openid-client
 * (ID token, state, nonce and PKCE checks included). Its back channel runs in process.
 */
export function createSsoClient(app: FastifyInstance, config: Config, consoleClient: ConsoleClient) {
  let configuration: Promise<client.Configuration> | undefined;
  const fetch = inProcessFetch(app, config.publicUrl.origin) as unknown as client.CustomFetch;

  function discover(): Promise<client.Configuration> {
    configuration ??= client
      .discovery(
        new URL(issuerOf(config)),
        consoleClient.clientId,
        { redirect_uris: [consoleClient.redirectUri], id_token_signed_response_alg: 'RS256' },
        client.ClientSecretBasic(consoleClient.clientSecret),
        {
          [client.customFetch]: fetch,
          execute: config.publicUrl.protocol === 'http:' ? [client.allowInsecureRequests] : [],
        },
      )
      .then((c) => {
        c[client.customFetch] = fetch;
        return c;
      })
      .catch((error: unknown) => {
        configuration = undefined;
        throw error;
      });
    return configuration;
  }

  return {
    consoleClient,
    /** `prompt: 'login'` makes the provider ask again even over a live SSO session (sign-in tickets). */
    async authorizationUrl(
      tx: { state: string; nonce: string; verifier: string },
      options: { prompt?: 'login' } = {},
    ): Promise<string> {
      const c = await discover();
      return client
        .buildAuthorizationUrl(c, {
          redirect_uri: consoleClient.redirectUri,
          scope: 'openid email profile',
          state: tx.state,
          nonce: tx.nonce,
          code_challenge: await client.calculatePKCECodeChallenge(tx.verifier),
          code_challenge_method: 'S256',
          claims: JSON.stringify({ id_token: { sid: null } }),
          ...(options.prompt ? { prompt: options.prompt } : {}),
        })
        .toString();
    },
    async exchangeCode(currentUrl: URL, tx: { state: string; nonce: string; verifier: string }) {
      const c = await discover();
      const tokens = await client.authorizationCodeGrant(c, currentUrl, {
        pkceCodeVerifier: tx.verifier,
        expectedState: tx.state,
        expectedNonce: tx.nonce,
        idTokenExpected: true,
      });
      return { idToken: tokens.id_token!, claims: tokens.claims()! };
    },
    async endSessionUrl(idToken: string): Promise<string> {
      const c = await discover();
      return client
        .buildEndSessionUrl(c, {
          id_token_hint: idToken,
          post_logout_redirect_uri: consoleClient.postLogoutRedirectUri,
        })
        .toString();
    },
  };
}

export type SsoClient = ReturnType<typeof createSsoClient>;
export const randomState = () => client.randomState();
export const randomNonce = () => client.randomNonce();
export const randomVerifier = () => client.randomPKCECodeVerifier();
