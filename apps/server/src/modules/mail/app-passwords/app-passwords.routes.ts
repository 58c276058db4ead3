import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  appPasswordParams,
  appPasswordsResponse,
  createAppPasswordBody,
  createdAppPasswordResponse,
} from '@atrium/contracts/app-passwords';
import type { Db } from '../../../db/database.ts';
import { principalOf } from '../../../plugins/auth-guard.ts';
import { listAppPasswords } from './app-passwords.repository.ts';
import {
  appPasswordOwner,
  appPasswordView,
  createAppPassword,
  revokeAppPassword,
} from './app-passwords.service.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const tags = ['profile'];

const route = routeOptions({ config: { access: 'user' }, tags });

/** The signed-in user's own app passwords for mail clients (/profile). */
export const appPasswordsRoutes =
  (deps: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;
    const ownerOf = (request: Parameters<typeof principalOf>[0]) =>
      appPasswordOwner(db, principalOf(request), request.ip);

    app.get(
      '/api/profile/app-passwords',
      route(
        'listOwnAppPasswords',
        'Your app passwords for mail clients, newest first, with when each was last used',
        { response: { 200: appPasswordsResponse } },
      ),
      async (request) => {
        const principal = principalOf(request);
        const rows = await listAppPasswords(db, principal);
        return { appPasswords: rows.map(appPasswordView) };
      },
    );

    app.post(
      '/api/profile/app-passwords',
      route(
        'createOwnAppPassword',
        'Creates a named app password; the password is in this answer only',
        { body: createAppPasswordBody, response: { 201: createdAppPasswordResponse } },
        { access: 'user', rateLimit: { max: 20, timeWindow: '1 minute' } },
      ),
      async (request, reply) => {
        const created = await createAppPassword(db, await ownerOf(request), request.body.name);
        return reply.status(201).send(created);
      },
    );

    app.delete(
      '/api/profile/app-passwords/:appPasswordId',
      route(
        'revokeOwnAppPassword',
        'Revokes one of your app passwords: mail clients using it are refused at once',
        { params: appPasswordParams, response: { 204: z.null() } },
      ),
      async (request, reply) => {
        await revokeAppPassword(db, await ownerOf(request), request.params.appPasswordId);
        return reply.status(204).send(null);
      },
    );
  };
