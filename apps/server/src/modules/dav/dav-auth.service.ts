import path from 'node:path';
import type Provider from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import type { AddressFailureBudget } from '../auth/sign-in/address-failures.ts';
import { signInWithAppPassword } from '../mail/app-passwords/app-password-sign-in.ts';
import { DAV_PATH, DAV_PRINCIPALS_PATH } from '../devices/device-endpoints.ts';
import { findActiveDavUserOfClient, type DavUser } from './dav.repository.ts';

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

/** The catalog entry whose OIDC client is a web calendar (catalog-defaults.ts): its tokens open DAV. */
export const CALENDAR_TEMPLATE = 'calendar-contacts';

/**
 * The active user these credentials sign in, or undefined.
 * - An app password: app-password-sign-in.ts (right ones first, wrong ones throttled).
 * - An access token: live (unexpired, not revoked: the provider's own lookup) and issued to the
 *   Calendar & Contacts app of the user's own organisation. A token another app got for signing
 *   someone in (`openid email`) opens nothing here: that app was never given calendars (issue 38).
 */
export async function davUserOf(
  deps: { db: Db; provider: Provider; failures: AddressFailureBudget },
  credentials: DavCredentials,
  ip: string,
): Promise<DavUser | undefined> {
  if (credentials.kind === 'basic') {
    const match = await signInWithAppPassword(deps.db, deps.failures, {
      protocol: 'dav',
      email: credentials.email,
      password: credentials.password,
      ip,
    });
    return match
      ? { userId: match.userId, organizationId: match.organizationId, email: match.email }
      : undefined;
  }
  if (credentials.kind === 'bearer') {
    const token = await deps.provider.AccessToken.find(credentials.token).catch(() => undefined);
    if (!token?.accountId || !token.clientId || token.isExpired) return undefined;
    return findActiveDavUserOfClient(deps.db, token.accountId, token.clientId, CALENDAR_TEMPLATE);
  }
  return undefined;
}

/** A forwarded path as Atrium reads it (`..` resolved, escapes decoded); undefined when it cannot. */
function normalizedPath(forwardedUri: string | undefined): string | undefined {
  if (forwardedUri === undefined) return undefined;
  try {
    return path.posix.normalize(decodeURIComponent(forwardedUri.split('?')[0]!));
  } catch {
    return undefined;
  }
}

/**
 * Where a forwarded path is within the user's space: the DAV root, their home `/dav/<user>/`, a
 * collection in it (`/dav/<user>/calendar/`), or below that (an event, a card); undefined when it
 * is not theirs.
 */
export function davPathLevel(
  forwardedUri: string | undefined,
  user: string,
): 'root' | 'home' | 'collection' | 'item' | undefined {
  const normalized = normalizedPath(forwardedUri);
  if (normalized === undefined) return undefined;
  const root = DAV_PATH.replace(/\/$/, '');
  if (normalized === root || normalized === DAV_PATH) return 'root';
  // The principals Atrium answers (directory-principal.routes.ts) are everyone's, like the root.
  if (`${normalized}/`.startsWith(DAV_PRINCIPALS_PATH)) return 'root';
  if (!normalized.startsWith(DAV_PATH)) return undefined;
  const [owner, ...rest] = normalized.slice(DAV_PATH.length).split('/').filter(Boolean);
  if (owner !== user) return undefined;
  return rest.length === 0 ? 'home' : rest.length === 1 ? 'collection' : 'item';
}

/**
 * Whether the request Caddy forwards (X-Forwarded-Uri) stays within the user's own collections:
 * the DAV root, or a path under `/dav/<user>/`. Radicale's rights (radicaleRights) say the same; this
 * refuses another user's path before Radicale sees it, and a path Atrium cannot read (bad
 * escapes, `..` out of /dav) outright.
 */
export function pathBelongsTo(forwardedUri: string | undefined, user: string): boolean {
  return davPathLevel(forwardedUri, user) !== undefined;
}

/** Methods that would remove what they name: a home would go with everything in it. */
const REMOVING_METHODS = new Set(['DELETE', 'MOVE']);

/**
 * Issue 43 item 4: the DAV root and the user's home cannot be deleted or moved (Radicale would
 * remove the home with every calendar and address book in it, and answer 200). Collections in the
 * home and what is in them can; a default one deleted is made again at the next request.
 */
export const removesHome = (method: string | undefined, level: ReturnType<typeof davPathLevel>) =>
  REMOVING_METHODS.has((method ?? '').toUpperCase()) && (level === 'root' || level === 'home');

/** A collection of the home is being deleted or moved: the defaults are looked at again after. */
export const removesCollection = (method: string | undefined, level: ReturnType<typeof davPathLevel>) =>
  REMOVING_METHODS.has((method ?? '').toUpperCase()) && level === 'collection';

/** Radicale's user for an Atrium user: the user's id, unique across organisations and never reused. */
export const radicaleUser = (user: DavUser) => user.userId;
