import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { appPasswordsResponse, userAppPasswordParams } from '@atrium/contracts/app-passwords';
import { userIdParamsSchema } from '@atrium/contracts/users';
import type { Db } from '../../../db/database.ts';
import { principalOf } from '../../../plugins/auth-guard.ts';
import { routeOptions } from '../../../plugins/route-options.ts';
import { actorLabelOf } from '../../organizations/actor.ts';
import { revokeUserAppPassword, userAppPasswords } from './app-passwords-admin.service.ts';

const route = routeOptions({ config: { access: 'admin' }, tags: ['users'] });

/** Admins: a user's app passwords (their devices) on /users/:id, and revoking one. */
export const appPasswordsAdminRoutes =
  (deps: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;

    app.get(
      '/api/users/:id/app-passwords',
      route(
        'listUserAppPasswords',
        'The user’s app passwords (their devices), newest first, with when each was last used',
        { params: userIdParamsSchema, response: { 200: appPasswordsResponse } },
      ),
      async (request) => userAppPasswords(db, principalOf(request).organizationId, request.params.id),
    );

    app.delete(
      '/api/users/:id/app-passwords/:appPasswordId',
      route(
        'revokeUserAppPassword',
        'Revokes one of the user’s app passwords: the device using it is refused at once',
        { params: userAppPasswordParams, response: { 204: z.null() } },
      ),
      async (request, reply) => {
        const principal = principalOf(request);
        const { label } = await actorLabelOf(db, principal);
        const actor = {
          organizationId: principal.organizationId,
          userId: principal.userId,
          label,
          ip: request.ip,
        };
        await revokeUserAppPassword(db, actor, request.params.id, request.params.appPasswordId);
        return reply.status(204).send(null);
      },
    );
  };
