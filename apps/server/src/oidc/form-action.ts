import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/**
 * The provider's pages run under the site-wide CSP, whose `form-action 'self'` would stop the
 * browser from leaving them for the app: the form_post page posts to the app's redirect URI, and
 * the sign-out page posts to the provider, which answers with a 303 to the app's post-logout URI
 * (browsers check form-action on that redirect too). Each such response allows exactly the one
 * address the provider has just checked against the client's registration, nothing else.
 */
export function allowFormTargetsOfClient(provider: Provider): void {
  provider.use(async (ctx, next) => {
    await next();
    const target = formTargetOf(ctx as KoaContextWithOIDC);
    if (target) allowFormAction(ctx as KoaContextWithOIDC, target);
  });
}

function formTargetOf(ctx: KoaContextWithOIDC): string | undefined {
  const oidc = ctx.oidc as KoaContextWithOIDC['oidc'] | undefined;
  const client = oidc?.client;
  const params = oidc?.params;
  if (!client || !params) return undefined;
  if (oidc.route === 'authorization' || oidc.route === 'resume') {
    const uri = params.redirect_uri;
    if (params.response_mode !== 'form_post' || typeof uri !== 'string') return undefined;
    return client.redirectUriAllowed(uri) ? uri : undefined;
  }
  if (oidc.route === 'end_session') {
    const uri = params.post_logout_redirect_uri;
    return typeof uri === 'string' && client.postLogoutRedirectUriAllowed(uri) ? uri : undefined;
  }
  return undefined;
}

/**
 * A CSP source for one URL: scheme, host, port and path (a path without a trailing slash matches
 * only itself); the query is left out, as CSP sources have none. `;` and `,` would end the
 * directive or the header, so they are percent-encoded (CSP decodes paths before comparing).
 */
export function cspSourceOf(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return `${url.origin}${url.pathname.replace(/;/g, '%3B').replace(/,/g, '%2C')}`;
}

function allowFormAction(ctx: KoaContextWithOIDC, uri: string): void {
  const csp = ctx.response.get('content-security-policy');
  const source = cspSourceOf(uri);
  if (!csp || !source) return;
  ctx.set(
    'content-security-policy',
    csp.replace(/form-action ([^;]*)/, (_whole, sources: string) => `form-action ${sources} ${source}`),
  );
}

/**
 * An app that logs out to an address it never registered still logs the user out: the address
 * is dropped (the provider would otherwise refuse the whole request and leave the SSO session
 * alive after the app ended its own), and the user lands on "You are signed out" instead.
 */
export function signOutDespiteUnregisteredPostLogoutUri(provider: Provider): void {
  const prototype = provider.Client.prototype as {
    postLogoutRedirectUriAllowed(this: unknown, uri: string): boolean;
  };
  const registered = prototype.postLogoutRedirectUriAllowed;
  prototype.postLogoutRedirectUriAllowed = function (this: unknown, uri: string) {
    if (registered.call(this, uri)) return true;
    const ctx = Provider.ctx;
    if (ctx?.oidc?.route !== 'end_session' || !ctx.oidc.params) return false;
    ctx.oidc.params.post_logout_redirect_uri = undefined;
    return true;
  };
}
