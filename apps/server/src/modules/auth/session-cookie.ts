import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../../config.ts';

export const SESSION_COOKIE = 'atrium_session';
/** Seed spec §9: cookie lifetime 1 day. */
export const SESSION_LIFETIME_SECONDS = 24 * 60 * 60;

/**
 * Seed spec §9: over HTTPS the cookie is Secure, SameSite=None, on the shared parent domain;
 * otherwise host-only with SameSite=Lax. Always HttpOnly: no script reads it.
 */
export function sessionCookieOptions(config: Config): CookieSerializeOptions {
  const base: CookieSerializeOptions = { httpOnly: true, path: '/', maxAge: SESSION_LIFETIME_SECONDS };
  if (!config.secureCookies) return { ...base, secure: false, sameSite: 'lax' };
  return { ...base, secure: true, sameSite: 'none', domain: parentDomain(config.publicUrl.hostname) };
}

/** `console.example.com` → `example.com`; a two-label host is its own parent. */
export function parentDomain(hostname: string): string {
  const labels = hostname.split('.');
  return labels.length > 2 ? labels.slice(1).join('.') : hostname;
}
