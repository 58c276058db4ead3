import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { trustedBrowsersResponse } from '@atrium/contracts/sign-in-policy';
import type { Db } from '../../../../db/database.ts';
import { notFound } from '../../../../lib/errors.ts';
import { principalOf } from '../../../../plugins/auth-guard.ts';
import { DEVICE_COOKIE } from '../../sign-in/known-devices.ts';
import { listTrustedBrowsers, removeTrustedBrowsers } from './trusted-browsers.ts';
import { routeOptions } from '../../../../plugins/route-options.ts';

const tags = ['profile'];
const params = z.object({ id: z.uuid('Not a valid id') });

const route = routeOptions({ config: { access: 'user' }, tags });

/** The signed-in user's trusted browsers on /profile (issue 17 item 6): list, remove one or all. */
export const trustedBrowsersRoutes =
  (deps: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;
    const ownerOf = (request: Parameters<typeof principalOf>[0]) => {
      const { organizationId, userId } = principalOf(request);
      return { organizationId, userId };
    };

    app.get(
      '/api/profile/trusted-browsers',
      route('listTrustedBrowsers', 'Browsers where your sign-ins skip the second factor, until when', {
        response: { 200: trustedBrowsersResponse },
      }),
      async (request) => ({
        browsers: await listTrustedBrowsers(db, ownerOf(request), request.cookies[DEVICE_COOKIE]),
      }),
    );

    app.delete(
      '/api/profile/trusted-browsers/:id',
      route(
        'removeTrustedBrowser',
        'Stop trusting one browser: its next sign-in asks for the second factor',
        { params, response: { 204: z.null() } },
      ),
      async (request, reply) => {
        if (!(await removeTrustedBrowsers(db, ownerOf(request), request.params.id))) {
          throw notFound('The trusted browser');
        }
        return reply.status(204).send(null);
      },
    );

    app.delete(
      '/api/profile/trusted-browsers',
      route('removeAllTrustedBrowsers', 'Stop trusting every browser', { response: { 204: z.null() } }),
      async (request, reply) => {
        await removeTrustedBrowsers(db, ownerOf(request));
        return reply.status(204).send(null);
      },
    );
  };
