import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sha256 } from '../lib/crypto.ts';
import { AppError, forbidden, unauthenticated } from '../lib/errors.ts';
import type { Db } from '../db/database.ts';
import { SESSION_COOKIE } from '../modules/auth/console-client/session-cookie.ts';
import {
  findActiveSession,
  touchSession,
  type SessionPrincipal,
} from '../modules/auth/sessions/sessions.repository.ts';

/** Who may call a route. Every /api route declares one; there is no default. */
export type Access = 'public' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: SessionPrincipal | null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Writing last_seen_at on every request would turn reads into writes. */
const TOUCH_INTERVAL_MS = 5 * 60 * 1000;

/**
 * Loads the session behind the cookie and enforces each route's `config.access`:
 * role and organisation are checked on the server, and state-changing requests
 * of a signed-in caller need the session's CSRF token.
 */
export function registerAuthGuard(app: FastifyInstance, db: Db): void {
  app.decorateRequest('principal', null);

  app.addHook('onRoute', (route) => {
    const isApi = route.url.startsWith('/api/') && !route.url.startsWith('/api/docs');
    if (isApi && !route.config?.access) {
      throw new Error(`Route ${String(route.method)} ${route.url} does not declare config.access`);
    }
  });

  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (!access) return;
    const cookie = request.cookies[SESSION_COOKIE];
    if (cookie) {
      const principal = await findActiveSession(db, sha256(cookie));
      if (principal) {
        request.principal = principal;
        if (Date.now() - principal.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
          await touchSession(db, principal.sessionId);
        }
      }
    }
    if (access === 'public') return;
    if (!request.principal) throw unauthenticated();
    if (!SAFE_METHODS.has(request.method)) assertCsrf(request, request.principal.csrfToken);
    if (access === 'admin' && !request.principal.isAdmin) throw forbidden('Only administrators can do this');
  });
}

function assertCsrf(request: FastifyRequest, expected: string): void {
  const sent = request.headers['x-csrf-token'];
  const a = Buffer.from(typeof sent === 'string' ? sent : '');
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new AppError(
      403,
      'csrf_failed',
      'The request is missing a valid CSRF token. Reload the page and try again.',
    );
  }
}

/** The signed-in caller of a 'user' or 'admin' route. */
export function principalOf(request: FastifyRequest): SessionPrincipal {
  if (!request.principal) throw unauthenticated();
  return request.principal;
}
