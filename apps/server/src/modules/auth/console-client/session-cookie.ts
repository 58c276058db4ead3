import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../../../config.ts';

export const SESSION_COOKIE = 'atrium_session';
/** Seed spec §9: cookie lifetime 1 day. */
export const SESSION_LIFETIME_SECONDS = 24 * 60 * 60;

/**
 * Seed spec §9: over HTTPS the cookie is Secure, SameSite=None, on the shared parent domain
 * (never a public suffix: config.cookieDomain); otherwise host-only with SameSite=Lax. The
 * provider's own cookies follow the same rules (oidc/provider.ts).
 */
export function crossSiteCookieRules(config: Config): {
  secure: boolean;
  sameSite: 'lax' | 'none';
  domain?: string;
} {
  if (!config.secureCookies) return { secure: false, sameSite: 'lax' };
  return { secure: true, sameSite: 'none', ...(config.cookieDomain ? { domain: config.cookieDomain } : {}) };
}

/** The console's session cookie: always HttpOnly, no script reads it. */
export function sessionCookieOptions(config: Config): CookieSerializeOptions {
  return { httpOnly: true, path: '/', maxAge: SESSION_LIFETIME_SECONDS, ...crossSiteCookieRules(config) };
}
