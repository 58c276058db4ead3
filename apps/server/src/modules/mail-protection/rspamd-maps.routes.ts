import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../lib/errors.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import { isMapToken, senderListMap, settingsMap } from './rspamd-maps.ts';
import { policyVersion } from './rspamd-maps.repository.ts';

const route = routeOptions({ config: { access: 'public' }, tags: ['mail'] });

const params = z.object({
  token: z.string().max(64),
  map: z.enum(['allow', 'block', 'settings']),
});

const isLoopback = (address: string | undefined) =>
  !!address && (address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.'));

/**
 * The maps rspamd polls (rspamd-policy-config.ts): only from this host (a loopback connection that
 * no proxy forwarded) and with the token derived from ATRIUM_SECRET; anything else is a 404 as for
 * a route that does not exist. Each answer carries the policy version as its ETag, so a poll while
 * nothing changed is one primary-key read and a 304.
 */
export const rspamdMapsRoutes =
  (deps: { db: Db; config: Config }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/mail/rspamd/:token/:map',
      {
        ...route('getRspamdMap', "rspamd's map of the organisations' spam policy (this host only)", {
          params,
          hide: true,
        }),
        // Polled by the host's own rspamd: no per-client rate limit applies to it.
        config: { access: 'public', rateLimit: false },
      },
      async (request, reply) => {
        const forwarded = request.headers['x-forwarded-for'] ?? request.headers.forwarded;
        if (
          forwarded !== undefined ||
          !isLoopback(request.socket.remoteAddress) ||
          !isMapToken(deps.config.secret, request.params.token)
        ) {
          throw notFound('Route');
        }
        const map = request.params.map;
        const etag = `"${await policyVersion(deps.db)}-${map}"`;
        reply.header('etag', etag).header('cache-control', 'no-cache').type('text/plain; charset=utf-8');
        if (request.headers['if-none-match'] === etag) return reply.status(304).send();
        return map === 'settings' ? settingsMap(deps.db) : senderListMap(deps.db, map);
      },
    );
  };
