import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { Db } from '../db/database.ts';
import { deriveKey } from '../lib/crypto.ts';
import { crossSiteCookieRules } from '../modules/auth/console-client/session-cookie.ts';
import { findAccountClaims } from './account.ts';
import { ACR_VALUES, interactionPolicyWithStrongSignIn } from './authentication-methods.ts';
import { createAdapterFactory } from './adapter.ts';
import { providerFetch } from './backchannel-logout.ts';
import { checkClientAccess } from './client-access.ts';
import { CookieSigner } from './cookie-signer.ts';
import { allowFormTargetsOfClient, signOutDespiteUnregisteredPostLogoutUri } from './form-action.ts';
import {
  answerTheMailServerForGood,
  introspectionWithoutClientIsInvalidClient,
  mayIntrospect,
} from './introspection.ts';
import { pkceClientMetadata, pkceRequired } from './pkce-policy.ts';
import { extraAccessTokenClaims } from './token-claims.ts';
import { FIRST_PARTY_OFFLINE_ACCESS_HOOK, keepOfflineAccessForFirstParty } from './offline-access.ts';
import { loadSigningKeys } from './keys.ts';
import { logoutSource, postLogoutSuccessSource, renderError } from './pages.ts';
import { sendStraightToLogin } from './straight-to-login.ts';
import { IssuedRefreshTokens } from './issued-tokens.ts';
import { holdWritesUntilAnswered } from './write-batch.ts';

/** The issuer: `${PUBLIC_URL}/oidc`. */
export const issuerOf = (config: Config) => new URL('/oidc', config.publicUrl).href;

/** Seed spec §9: cookie lifetime 1 day; the SSO session lives as long as the console's. */
const SESSION_TTL_SECONDS = 24 * 60 * 60;

/**
 * panva's oidc-provider with every model in the database: authorization code with PKCE (S256)
 * for every client (but apps whose template says otherwise, pkce-policy.ts), rotated refresh tokens (a replayed one revokes its grant), RP-initiated
 * logout, and no implicit or password grant. Sign-in happens in the console's /login page.
 */
export async function createProvider(db: Db, config: Config, changes?: ChangeFeed): Promise<Provider> {
  const keys = await loadSigningKeys(db, config);
  const issued = new IssuedRefreshTokens();
  const configuration: Configuration = {
    adapter: createAdapterFactory(db, config, changes, issued),
    jwks: { keys },
    cookies: {
      keys: new CookieSigner([deriveKey(config.secret, 'oidc-cookies').export().toString('base64url')]),
      // The SSO session cookie (`_session`) follows the console's rules: Secure, SameSite=None on
      // the parent domain over https, host-only Lax over http.
      long: { signed: true, httpOnly: true, ...crossSiteCookieRules(config) },
      short: { signed: true, httpOnly: true, ...crossSiteCookieRules(config) },
    },
    findAccount: (_ctx, sub) => findAccountClaims(db, sub),
    extraTokenClaims: (ctx, token) =>
      extraAccessTokenClaims(
        db,
        token as { kind: string; accountId?: string; scope?: string },
        (ctx as typeof ctx | undefined)?.oidc?.account,
      ),
    // The interaction's cookie is scoped to this API path; a browser nobody is signed in on is
    // sent straight to /login?uid=… instead (straight-to-login.ts).
    interactions: {
      url: (_ctx, interaction) => `/api/interactions/${interaction.uid}`,
      policy: interactionPolicyWithStrongSignIn(),
    },
    // The two levels of authentication-methods.ts; an app asks for the strong one with acr_values.
    acrValues: ACR_VALUES,
    features: {
      devInteractions: { enabled: false },
      // The console asks for `sid` in its ID token through it, to know which SSO session each
      // console session came from (ending one session ends that SSO session too).
      claimsParameter: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      revocation: { enabled: true },
      // Logout tokens to the apps that registered a URI, sent through the job queue
      // (backchannel-logout.ts); discovery advertises it, with sid.
      backchannelLogout: { enabled: true },
      // RFC 7662, for apps and Atrium's services; authenticated like the token endpoint.
      introspection: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => mayIntrospect(db, client, token),
      },
      userinfo: { enabled: true },
    },
    extraParams: { [FIRST_PARTY_OFFLINE_ACCESS_HOOK]: (ctx) => keepOfflineAccessForFirstParty(ctx) },
    // Required for every client except a confidential app whose template says its software
    // cannot send it (pkce-policy.ts: Debian's Roundcube).
    pkce: { required: (_ctx, client) => pkceRequired(client) },
    extraClientMetadata: pkceClientMetadata,
    responseTypes: ['code'],
    scopes: ['openid', 'offline_access', 'email', 'profile', 'groups'],
    claims: {
      // How the user signed in, in every ID token (authentication-methods.ts); apps need not ask.
      openid: ['sub', 'acr', 'amr'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name'],
      // Names of the user's groups in the organisation, for apps that map groups to their own roles.
      groups: ['groups'],
    },
    // What installed apps can use, and all discovery lists. The provider accepts either of the two
    // from every client, whichever its template registered (docs/app-catalog.md says so).
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    // Apps read e-mail and name from the ID token, without a userinfo round trip.
    conformIdTokenClaims: false,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    },
    rotateRefreshToken: true,
    // Refresh tokens for every client allowed the grant; without offline_access they die with the
    // SSO session (sign-out ends them), with it they last their TTL (see offline-access.ts).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      Session: SESSION_TTL_SECONDS,
      Interaction: 60 * 60,
      AuthorizationCode: 60,
      AccessToken: 60 * 60,
      IdToken: 60 * 60,
      RefreshToken: 30 * 24 * 60 * 60,
      Grant: 30 * 24 * 60 * 60,
    },
    loadExistingGrant: (ctx) => loadOrCreateGrant(db, ctx),
    renderError,
    fetch: providerFetch(config),
  };
  const provider = new Provider(issuerOf(config), configuration);
  allowFormTargetsOfClient(provider);
  introspectionWithoutClientIsInvalidClient(provider);
  signOutDespiteUnregisteredPostLogoutUri(provider);
  sendStraightToLogin(provider);
  answerTheMailServerForGood(provider);
  holdWritesUntilAnswered(provider, db, (upserts) => issued.remember(upserts));
  return provider;
}

/**
 * Every client is first party (the console, or an app an admin installed), so there is no consent
 * screen: a user the client is open to passes straight through. For anyone else no grant is
 * returned, the provider asks for consent, and the console's /login page shows why access is refused.
 */
async function loadOrCreateGrant(db: Db, ctx: KoaContextWithOIDC) {
  const { client, session, params } = ctx.oidc;
  const accountId = session?.accountId;
  if (!client || !accountId) return undefined;
  const access = await checkClientAccess(db, { userId: accountId, clientId: client.clientId });
  // Asked not to show anything: the answer is a refusal, not an invitation to ask for consent.
  if (!access.allowed && ctx.oidc.prompts.has('none')) {
    throw new errors.AccessDenied(`${access.appName} is not open to this user`);
  }
  if (!access.allowed) return undefined;
  const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
  const existing = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
  const grant = existing ?? new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId });
  const scope = typeof params?.scope === 'string' ? params.scope : 'openid';
  const missing = scope.split(' ').some((s) => !grant.getOIDCScope().split(' ').includes(s));
  if (!existing || missing) {
    grant.addOIDCScope(scope);
    await grant.save();
  }
  return grant;
}
