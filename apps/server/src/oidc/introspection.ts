import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Db } from '../db/database.ts';
import { MAIL_CLIENT_ID } from '../modules/mail/mail-client.ts';

/**
 * Who may read what at the introspection endpoint (the client has already authenticated like at
 * the token endpoint). An organisation's app sees only tokens issued to itself; one of Atrium's
 * own services (a client no organisation owns, such as the mail server) checks tokens that apps
 * present to it, so it may introspect any.
 */
export async function mayIntrospect(
  db: Db,
  caller: { clientId: string },
  token: { clientId?: string },
): Promise<boolean> {
  if (token.clientId === caller.clientId) return true;
  const row = await db
    .selectFrom('oidc_clients')
    .select('organization_id')
    .where('client_id', '=', caller.clientId)
    .executeTakeFirst();
  return row !== undefined && row.organization_id === null;
}

/**
 * What the mail server (Dovecot's `passdb oauth2`, client `atrium-mail`) reads: a token signs in
 * to IMAP only with the user's address in it, so a token issued without the `email` scope is
 * answered as inactive, like an unknown, expired or revoked one. And every answer to that client
 * carries `email`, empty when the token signs nobody in: Dovecot 2.3 checks its
 * `username_attribute` before `active`, and takes a missing one for an internal error, which IMAP
 * reports as `[UNAVAILABLE] Temporary authentication failure` and clients retry for ever. An
 * address that matches nobody is a refused sign-in (`AUTHENTICATIONFAILED`) instead.
 */
export function answerTheMailServerForGood(provider: Provider): void {
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as KoaContextWithOIDC).oidc as KoaContextWithOIDC['oidc'] | undefined;
    if (oidc?.route !== 'introspection' || oidc.client?.clientId !== MAIL_CLIENT_ID) return;
    const body = ctx.body as { active?: unknown; email?: unknown } | undefined;
    if (ctx.status !== 200 || !body || typeof body !== 'object') return;
    if (body.active === true && typeof body.email === 'string' && body.email !== '') return;
    ctx.body = { active: false, email: '' };
  });
}

/**
 * A request to the introspection endpoint with no client authentication at all: oidc-provider
 * answers 400 invalid_request ("no client authentication mechanism provided"); RFC 7662 §2.1 has
 * the endpoint require client authentication, and a failed one is RFC 6749 §5.2's 401
 * invalid_client, which is what a wrong secret gets. Both answer the same now
 * (docs/app-catalog.md, "Token introspection").
 */
export function introspectionWithoutClientIsInvalidClient(provider: Provider): void {
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as KoaContextWithOIDC).oidc as KoaContextWithOIDC['oidc'] | undefined;
    if (oidc?.route !== 'introspection' || ctx.status !== 400) return;
    const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
    if (body?.error !== 'invalid_request') return;
    if (body.error_description !== 'no client authentication mechanism provided') return;
    ctx.status = 401;
    ctx.body = { error: 'invalid_client', error_description: 'client authentication failed' };
  });
}
