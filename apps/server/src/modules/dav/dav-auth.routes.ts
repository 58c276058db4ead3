import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type Provider from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import { davRateLimit } from './dav-rate-limit.ts';
import { AddressFailureBudget } from '../auth/sign-in/address-failures.ts';
import {
  davCredentials,
  davPathLevel,
  davUserOf,
  radicaleUser,
  removesCollection,
  removesHome,
} from './dav-auth.service.ts';
import { DavAccountSetup, SETUP_RETRY_AFTER_SECONDS } from './dav-account-setup.ts';
import { markDavAccountUnchecked } from './dav.repository.ts';
import { directoryPrincipalRoutes } from './directory-principal.routes.ts';

/** The header Caddy copies from this answer to Radicale (`[auth] type = http_x_remote_user`). */
export const REMOTE_USER_HEADER = 'x-remote-user';
const REALM = 'Basic realm="Atrium calendars and contacts", charset="UTF-8"';

const route = routeOptions({
  config: {
    access: 'public',
    rateLimit: davRateLimit('dav'),
  },
  tags: ['calendars and contacts'],
});

const refuse = (reply: FastifyReply) =>
  reply
    .status(401)
    .header('www-authenticate', REALM)
    .type('text/plain; charset=utf-8')
    .send('Sign in with your e-mail address and an app password.\n');

/**
 * Caddy's `forward_auth` for /dav/ on MAIL_HOST (docs/dav.md): 200 with X-Remote-User (the
 * user's id) lets the request through to Radicale; anything else is Caddy's answer to the client.
 * Unknown users, suspended ones and wrong or revoked app passwords all get the same 401; wrong
 * app passwords count in the sign-in throttle under `dav:<address>`, like IMAP's `mail:`, and a
 * right one is let in whatever others guessed (app-password-sign-in.ts).
 */
export const davAuthRoutes =
  (deps: { db: Db; config: Config; provider: Provider }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, config } = deps;
    const failures = new AddressFailureBudget();
    const setup = new DavAccountSetup({ db, radicale: config.davRadicale, log: app.log });
    // The directory's own account for Apple devices (and autoconfig, Autodiscover): it signs in the same way.
    await app.register(directoryPrincipalRoutes(deps));

    app.get(
      '/api/dav/auth',
      route('davForwardAuth', "For Caddy's forward_auth: who a CalDAV/CardDAV request signs in as", {}),
      async (request, reply) => {
        const credentials = davCredentials(request.headers.authorization);
        if (credentials.kind === 'none') return refuse(reply);
        const user = await davUserOf({ ...deps, failures }, credentials, request.ip);
        if (!user) return refuse(reply);
        const remoteUser = radicaleUser(user);
        const uri = request.headers['x-forwarded-uri'];
        const level = davPathLevel(typeof uri === 'string' ? uri : undefined, remoteUser);
        if (level === undefined) {
          return reply.status(403).type('text/plain; charset=utf-8').send('Not your collection.\n');
        }
        const method = request.headers['x-forwarded-method'];
        const forwardedMethod = typeof method === 'string' ? method : undefined;
        if (removesHome(forwardedMethod, level)) {
          return reply
            .status(403)
            .type('text/plain; charset=utf-8')
            .send(
              'Your calendars and contacts cannot be deleted or moved as a whole: delete collections one by one.\n',
            );
        }
        if ((await setup.ensure(user)) === 'unavailable') {
          return reply
            .status(503)
            .header('retry-after', String(SETUP_RETRY_AFTER_SECONDS))
            .type('text/plain; charset=utf-8')
            .send('Your calendars and contacts are being set up: try again in a few seconds.\n');
        }
        // A deleted default collection is made again at the next request, not in 15 minutes.
        if (removesCollection(forwardedMethod, level)) await markDavAccountUnchecked(db, remoteUser);
        return reply.header(REMOTE_USER_HEADER, remoteUser).status(200).send();
      },
    );
  };
