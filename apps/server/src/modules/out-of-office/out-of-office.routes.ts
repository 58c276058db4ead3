import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { outOfOfficeBody, outOfOfficeResponse } from '@atrium/contracts/out-of-office';
import type { Db } from '../../db/database.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import { getOutOfOffice, putOutOfOffice } from './out-of-office.service.ts';

const route = routeOptions({ config: { access: 'user' }, tags: ['profile'] });

/** The signed-in user's own out-of-office reply (/profile); nobody else's. */
export const outOfOfficeRoutes =
  (deps: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;

    app.get(
      '/api/profile/out-of-office',
      route('getOwnOutOfOffice', 'Your out-of-office reply', {
        response: { 200: outOfOfficeResponse },
      }),
      async (request) => {
        const principal = principalOf(request);
        return { outOfOffice: await getOutOfOffice(db, principal) };
      },
    );

    app.put(
      '/api/profile/out-of-office',
      route(
        'setOwnOutOfOffice',
        'Turns your out-of-office reply on or off and sets its days and words; mail delivered from now on follows it',
        { body: outOfOfficeBody, response: { 200: outOfOfficeResponse } },
        { access: 'user', rateLimit: { max: 30, timeWindow: '1 minute' } },
      ),
      async (request) => {
        const principal = principalOf(request);
        return { outOfOffice: await putOutOfOffice(db, principal, request.body) };
      },
    );
  };
