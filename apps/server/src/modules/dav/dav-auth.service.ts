import path from 'node:path';
import type Provider from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import { checkAppPassword } from '../mail/app-passwords/app-passwords.service.ts';
import { DAV_PATH } from '../devices/device-endpoints.ts';
import { findActiveDavUser, findAppPasswordOwner, type DavUser } from './dav.repository.ts';
import { VerifiedAppPasswords } from './verified-app-passwords.ts';

export type DavCredentials =
  { kind: 'basic'; email: string; password: string } | { kind: 'bearer'; token: string } | { kind: 'none' };

/** Basic `email:app-password` or an OIDC access token as Bearer; anything else is none. */
export function davCredentials(header: string | undefined): DavCredentials {
  const bearer = header && /^Bearer\s+(\S{1,4096})$/i.exec(header);
  if (bearer) return { kind: 'bearer', token: bearer[1]! };
  const basic = header && /^Basic\s+([A-Za-z0-9+/=]{1,1024})$/i.exec(header);
  if (!basic) return { kind: 'none' };
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  // An address has no colon; the password may (it has none, but a typed one might).
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon > 320) return { kind: 'none' };
  return {
    kind: 'basic',
    email: decoded.slice(0, colon).trim().toLowerCase(),
    password: decoded.slice(colon + 1),
  };
}

/**
 * The active user these credentials sign in, or undefined. An app password is checked as the
 * mail directory checks it (one argon2 verification whether the user exists or not), then
 * remembered a while (verified-app-passwords.ts); an access
 * token must be live (unexpired, not revoked: the provider's own lookup) and its user active.
 */
export async function davUserOf(
  deps: { db: Db; provider: Provider; verified: VerifiedAppPasswords },
  credentials: DavCredentials,
): Promise<DavUser | undefined> {
  if (credentials.kind === 'basic') {
    const key = VerifiedAppPasswords.key(credentials.email, credentials.password);
    const known = deps.verified.get(key);
    if (known) {
      const owner = await findAppPasswordOwner(deps.db, known);
      // The match went with its app password or user: verify afresh, as the first time.
      if (owner && owner.email === credentials.email) return owner;
      deps.verified.forget(key);
    }
    const matched = await checkAppPassword(deps.db, credentials.email, credentials.password);
    if (!matched) return undefined;
    deps.verified.set(key, matched.id);
    return findAppPasswordOwner(deps.db, matched.id);
  }
  if (credentials.kind === 'bearer') {
    const token = await deps.provider.AccessToken.find(credentials.token).catch(() => undefined);
    if (!token?.accountId || token.isExpired) return undefined;
    return findActiveDavUser(deps.db, token.accountId);
  }
  return undefined;
}

/**
 * Whether the request Caddy forwards (X-Forwarded-Uri) stays within the user's own collections:
 * the DAV root, or a path under `/dav/<user>/`. Radicale's rights (radicaleRights) say the same; this
 * refuses another user's path before Radicale sees it, and a path Atrium cannot read (bad
 * escapes, `..` out of /dav) outright.
 */
export function pathBelongsTo(forwardedUri: string | undefined, user: string): boolean {
  if (forwardedUri === undefined) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(forwardedUri.split('?')[0]!);
  } catch {
    return false;
  }
  const normalized = path.posix.normalize(decoded);
  const root = DAV_PATH.replace(/\/$/, '');
  if (normalized === root || normalized === DAV_PATH) return true;
  if (!normalized.startsWith(DAV_PATH)) return false;
  const owner = normalized.slice(DAV_PATH.length).split('/')[0];
  return owner === user;
}

/** Radicale's user for an Atrium user: the user's id, unique across organisations and never reused. */
export const radicaleUser = (user: DavUser) => user.userId;
