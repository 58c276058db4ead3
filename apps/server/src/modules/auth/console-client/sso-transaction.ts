import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config.ts';
import { decryptSecret, deriveKey, encryptSecret } from '../../../lib/crypto.ts';

/**
 * What /api/sso/start must remember until /api/sso/callback: PKCE verifier, state, nonce, the
 * console path to return to, and an optional sign-in ticket. Kept in an encrypted, HttpOnly
 * cookie scoped to /api/, so no server state exists before sign-in completes.
 */
export interface SsoTransaction {
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
  ticket?: string;
}

const COOKIE = 'atrium_sso';
const PURPOSE = 'sso-transaction';

function options(config: Config) {
  return {
    path: '/api/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: config.secureCookies,
    maxAge: 60 * 60,
  };
}

export function writeTransaction(reply: FastifyReply, config: Config, tx: SsoTransaction): void {
  void reply.setCookie(
    COOKIE,
    encryptSecret(deriveKey(config.secret, PURPOSE), JSON.stringify(tx)),
    options(config),
  );
}

export function readTransaction(request: FastifyRequest, config: Config): SsoTransaction | undefined {
  const sealed = request.cookies[COOKIE];
  if (!sealed) return undefined;
  try {
    return JSON.parse(decryptSecret(deriveKey(config.secret, PURPOSE), sealed)) as SsoTransaction;
  } catch {
    return undefined;
  }
}

export function clearTransaction(reply: FastifyReply, config: Config): void {
  void reply.clearCookie(COOKIE, options(config));
}

/**
 * Only a path of this console: never another origin (open redirect) nor an API path. The value
 * is parsed as a browser would parse the Location header (WHATWG URL: tabs and newlines dropped,
 * backslashes read as slashes, dot segments removed) and only its normalised path, query and
 * fragment are kept, so what is sent is exactly what was checked and is a valid header value.
 */
export function safeReturnTo(value: unknown, publicUrl: URL): string {
  if (typeof value !== 'string' || !value.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(value, publicUrl);
  } catch {
    return '/';
  }
  if (url.origin !== publicUrl.origin) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  // `/.//evil.example` normalises to `//evil.example`, which a browser reads as another host.
  if (path.startsWith('//') || path.length > 2000) return '/';
  if (/^\/(api\/|oidc|login)/.test(url.pathname)) return '/';
  return path;
}
