import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type Provider from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import { clearFailures, recordFailure, throttleError, throttleState } from '../auth/sign-in/throttle.ts';
import { davCredentials, davUserOf, pathBelongsTo, radicaleUser } from './dav-auth.service.ts';
import { addressBookJob, syncAddressBook } from './dav-address-book.job.ts';
import { enqueue } from '../jobs/jobs.repository.ts';
import { recordDavAccount, type DavUser } from './dav.repository.ts';
import { ensureDefaultCollections } from './radicale-client.ts';
import { VerifiedAppPasswords } from './verified-app-passwords.ts';

/** The header Caddy copies from this answer to Radicale (`[auth] type = http_x_remote_user`). */
export const REMOTE_USER_HEADER = 'x-remote-user';
const REALM = 'Basic realm="Atrium calendars and contacts", charset="UTF-8"';

// Clients send credentials with every request and sync many items at once: a generous limit per
// address, with wrong passwords held back by the sign-in throttle below.
const route = routeOptions({
  config: { access: 'public', rateLimit: { max: 1200, timeWindow: '1 minute' } },
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
 * app passwords count in the sign-in throttle under `dav:<address>`, like IMAP's `mail:`.
 */
export const davAuthRoutes =
  (deps: { db: Db; config: Config; provider: Provider }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db, config } = deps;
    const verified = new VerifiedAppPasswords();
    // Per process: a user whose defaults exist (or are being made) is not looked at again.
    const provisioned = new Map<string, Promise<void>>();
    const provision = (davUser: DavUser) => {
      const radicale = config.davRadicale;
      if (!radicale) return Promise.resolve();
      const user = radicaleUser(davUser);
      let pending = provisioned.get(user);
      if (!pending) {
        pending = (async () => {
          await ensureDefaultCollections(radicale, user);
          // A new account gets the organisation's address book now; later changes come by job.
          if (!(await recordDavAccount(db, davUser))) return;
          await syncAddressBook({ db, radicale }, davUser.organizationId, [user]).catch(async () => {
            // The job writes it into every account, with retries.
            await enqueue(db, addressBookJob(davUser.organizationId));
          });
        })().catch((error: unknown) => {
          // Not fatal: the request goes on, and the next one tries again.
          provisioned.delete(user);
          app.log.warn({ err: error, user }, 'could not create the default collections or the address book');
        });
        provisioned.set(user, pending);
      }
      return pending;
    };

    app.get(
      '/api/dav/auth',
      route('davForwardAuth', "For Caddy's forward_auth: who a CalDAV/CardDAV request signs in as", {}),
      async (request, reply) => {
        const credentials = davCredentials(request.headers.authorization);
        if (credentials.kind === 'none') return refuse(reply);
        const identifier = credentials.kind === 'basic' ? `dav:${credentials.email}` : undefined;
        const throttle = identifier ? await throttleState(db, identifier, request.ip) : undefined;
        if (throttle?.blocked) throw throttleError(throttle.blocked);
        const user = await davUserOf({ ...deps, verified }, credentials);
        if (!user) {
          if (identifier) await recordFailure(db, identifier, request.ip);
          return refuse(reply);
        }
        if (identifier && throttle!.failures > 0) {
          await clearFailures(db, { identifier, ip: request.ip, knownDevice: false });
        }
        const remoteUser = radicaleUser(user);
        const uri = request.headers['x-forwarded-uri'];
        if (!pathBelongsTo(typeof uri === 'string' ? uri : undefined, remoteUser)) {
          return reply.status(403).type('text/plain; charset=utf-8').send('Not your collection.\n');
        }
        await provision(user);
        return reply.header(REMOTE_USER_HEADER, remoteUser).status(200).send();
      },
    );
  };
