import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionResponse, ssoLogoutResponse } from '@atrium/contracts/auth';
import type { SignInErrorCode } from '@atrium/contracts/sign-in-values';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { randomToken, sha256 } from '../../../lib/crypto.ts';
import { principalOf } from '../../../plugins/auth-guard.ts';
import { endSsoSession } from './end-console-session.ts';
import { findSessionView } from '../sessions/session-view.ts';
import { SESSION_COOKIE, SESSION_LIFETIME_SECONDS, sessionCookieOptions } from './session-cookie.ts';
import { insertSession } from '../sessions/sessions.repository.ts';
import { TICKET_COOKIE, takeBoundTicket } from '../sign-in/sign-in-tickets.ts';
import { randomNonce, randomState, randomVerifier, type SsoClient } from './sso-client.ts';
import { clearTransaction, readTransaction, safeReturnTo, writeTransaction } from './sso-transaction.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const tags = ['session'];

const route = routeOptions({
  config: { access: 'public', rateLimit: { max: 30, timeWindow: '1 minute' } },
  tags: tags,
});

/**
 * The console's backend-for-frontend: it signs in through its own provider (code + PKCE),
 * keeps the tokens on the server and gives the browser only an HttpOnly session cookie.
 */
export const ssoRoutes =
  (deps: { db: Db; config: Config; sso: SsoClient }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, config, sso } = deps;

    app.get(
      '/api/sso/start',
      route('startSso', 'Starts single sign-on: redirects to the identity provider', {
        querystring: z.object({
          returnTo: z.string().max(2000).optional(),
          ticket: z.string().max(200).optional(),
        }),
      }),
      async (request, reply) => {
        const ticket = takeBoundTicket(reply, config, request.query.ticket, request.cookies[TICKET_COOKIE]);
        const tx = {
          state: randomState(),
          nonce: randomNonce(),
          verifier: randomVerifier(),
          returnTo: safeReturnTo(request.query.returnTo, config.publicUrl),
          ...(ticket ? { ticket } : {}),
        };
        writeTransaction(reply, config, tx);
        // A ticket signs in exactly its user, even in a browser signed in as someone else.
        const prompt = tx.ticket ? ('login' as const) : undefined;
        const authorization = await sso.authorizationUrl(tx, { prompt });
        const next = await askProvider(request, reply, authorization);
        return reply.redirect(next ?? authorization, 302);
      },
    );

    /**
     * The provider's answer to the authorization request, asked for in this process with the
     * browser's own cookies, address and headers: its redirect (to /login?uid=… or straight back
     * with a code) is where the browser goes next, with the provider's cookies. One redirect less
     * before the sign-in page, some hundreds of milliseconds on a phone. Anything but a redirect
     * (an error page) leaves the browser to ask the provider itself, as before.
     */
    async function askProvider(
      request: FastifyRequest,
      reply: FastifyReply,
      authorization: string,
    ): Promise<string | undefined> {
      const target = new URL(authorization);
      const pass = ['cookie', 'user-agent', 'accept', 'accept-language'] as const;
      const headers: Record<string, string> = { host: config.publicUrl.host };
      for (const name of pass) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const answer = await app.inject({
        method: 'GET',
        url: target.pathname + target.search,
        headers,
        remoteAddress: request.ip,
      });
      const location = answer.headers.location;
      if ((answer.statusCode !== 302 && answer.statusCode !== 303) || typeof location !== 'string') {
        return undefined;
      }
      const cookies = answer.headers['set-cookie'];
      if (cookies) void reply.header('set-cookie', Array.isArray(cookies) ? cookies : [cookies]);
      return location;
    }

    app.get(
      '/api/sso/callback',
      route('completeSso', 'Completes single sign-on: exchanges the code and starts a console session', {
        querystring: z.record(z.string(), z.string()),
      }),
      async (request, reply) => {
        const tx = readTransaction(request, config);
        clearTransaction(reply, config);
        if (!tx || request.query.error) {
          // The provider's own words are not passed on: /login shows only messages of ours.
          return backToSignIn(reply, request.query.error === 'access_denied' ? 'cancelled' : 'incomplete');
        }
        let exchanged: Awaited<ReturnType<SsoClient['exchangeCode']>>;
        try {
          exchanged = await sso.exchangeCode(new URL(request.url, config.publicUrl), tx);
        } catch (error) {
          // A stale or replayed callback (old tab, back button): start again rather than fail.
          request.log.warn({ err: error }, 'SSO callback refused');
          return backToSignIn(reply, 'incomplete');
        }
        const { idToken, claims } = exchanged;
        const user = await db
          .selectFrom('users')
          .select(['id', 'organization_id'])
          .where('id', '=', claims.sub)
          .where('status', '=', 'active')
          .executeTakeFirst();
        if (!user) return backToSignIn(reply, 'account_unavailable');
        // Signing in again in this browser replaces its session: the old id stops working.
        const previous = request.cookies[SESSION_COOKIE];
        if (previous) await db.deleteFrom('console_sessions').where('id', '=', sha256(previous)).execute();
        // A fresh session id at every sign-in (no session fixation).
        const token = randomToken();
        await insertSession(db, {
          id: sha256(token),
          userId: user.id,
          organizationId: user.organization_id,
          csrfToken: randomToken(),
          expiresAt: new Date(Date.now() + SESSION_LIFETIME_SECONDS * 1000),
          idToken,
          oidcSid: typeof claims.sid === 'string' ? claims.sid : null,
          userAgent: request.headers['user-agent']?.slice(0, 500) ?? null,
          ip: request.ip,
        });
        void reply.setCookie(SESSION_COOKIE, token, sessionCookieOptions(config));
        // Checked again: a transaction cookie sealed before this check was as strict may still be live.
        return reply.redirect(safeReturnTo(tx.returnTo, config.publicUrl), 303);
      },
    );

    app.get(
      '/api/session',
      route(
        'getSession',
        'The signed-in user, their organisation and the CSRF token (401 when signed out)',
        { response: { 200: sessionResponse } },
        { access: 'user' },
      ),
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        const principal = principalOf(request);
        return findSessionView(db, config, principal);
      },
    );

    app.post(
      '/api/sso/logout',
      route(
        'logout',
        "Ends the console session; returns the provider's end-session URL to visit next",
        { response: { 200: ssoLogoutResponse } },
        { access: 'user' },
      ),
      async (request, reply) => {
        const principal = principalOf(request);
        const row = await db
          .deleteFrom('console_sessions')
          .where('id', '=', principal.sessionId)
          .returning(['id_token', 'oidc_sid'])
          .executeTakeFirst();
        // The SSO session ends now, not only once the browser follows the end-session URL: a
        // browser that never gets there (closed tab, script blocked) must not pass straight back in.
        if (row) await endSsoSession(db, principal.userId, row.oidc_sid);
        const { maxAge: _maxAge, ...cookieOptions } = sessionCookieOptions(config);
        void reply.clearCookie(SESSION_COOKIE, cookieOptions);
        // Sessions made without the provider (none in production) have no SSO session to end.
        const endSessionUrl = row?.id_token ? await sso.endSessionUrl(row.id_token) : '/login';
        return { endSessionUrl };
      },
    );
  };

function backToSignIn(reply: FastifyReply, error: SignInErrorCode) {
  return reply.redirect(`/login?${new URLSearchParams({ error })}`, 303);
}
