import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * Not a parameter apps send: the provider calls every extra parameter's validator on each
 * authorization request, right after it checks the scope and before it starts the sign-in
 * interaction, which makes it the one place to correct that check (a value sent is ignored).
 */
export const FIRST_PARTY_OFFLINE_ACCESS_HOOK = 'atrium_first_party';

/**
 * The provider keeps `offline_access` only with `prompt=consent`, a screen first-party apps never
 * show. Every client is first party (the console, or an app an admin installed), so an app
 * whose registration allows refresh tokens (its catalog template decides) keeps the
 * `offline_access` it asked for: its refresh token then outlives the user's Atrium sign-out.
 */
export function keepOfflineAccessForFirstParty(ctx: KoaContextWithOIDC): void {
  const { params, client, route } = ctx.oidc;
  if (route !== 'authorization' || !params || !client?.grantTypeAllowed('refresh_token')) return;
  const body = (ctx.oidc as { body?: Record<string, unknown> }).body;
  const asked = ctx.method === 'POST' ? body?.scope : ctx.query.scope;
  if (typeof asked !== 'string' || !asked.split(' ').includes('offline_access')) return;
  const scopes = typeof params.scope === 'string' ? params.scope.split(' ') : [];
  if (!scopes.includes('offline_access')) params.scope = [...scopes, 'offline_access'].join(' ');
}
