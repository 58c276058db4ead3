import {
  addUserSchema,
  createdUserSchema,
  emailDomainsSchema,
  exportUsersQuerySchema,
  listUsersQuerySchema,
  okSchema,
  setPasswordSchema,
  updateUserSchema,
  userDetailSchema,
  userIdParamsSchema,
  userSessionParamsSchema,
  usersPageSchema,
} from '@atrium/contracts/users';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../../plugins/auth-guard.ts';
import { emailDomainsFor } from './email-domains.ts';
import { mailHostedHere } from '../invitations/invitation-address.ts';
import {
  adminSetPassword,
  endSession,
  reactivateUser,
  removeUser,
  sendPasswordLink,
  suspendUser,
} from './user-access.service.ts';
import { exportUsersCsv } from './users-export.ts';
import { listUsers } from './users-list.service.ts';
import { addUser, getUserDetail, updateUser } from './users.service.ts';
import { actorOf } from '../organizations/actor.ts';
import type { UsersDeps } from './users.deps.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const ADMIN = { access: 'admin' as const };
const TAGS = ['users'];
const ok = { ok: true as const };

const route = routeOptions({ config: ADMIN, tags: TAGS });

/** Users of the caller's organisation. Admins only; other orgs' users are 404. */
export const usersRoutes =
  (deps: UsersDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;

    app.get(
      '/api/users',
      route(
        'listUsers',
        'A page of 50 users: prefix search on name or e-mail, status filter, sort, keyset cursor',
        { querystring: listUsersQuerySchema, response: { 200: usersPageSchema } },
      ),
      async (request) => {
        const { cursor, ...filter } = request.query;
        return listUsers(db, principalOf(request).organizationId, filter, cursor);
      },
    );

    app.get(
      '/api/users/export.csv',
      route('exportUsers', 'The filtered users list as CSV (streamed)', {
        querystring: exportUsersQuerySchema,
        produces: ['text/csv'],
      }),
      async (request, reply) => {
        const date = new Date().toISOString().slice(0, 10);
        const csv = await exportUsersCsv(db, principalOf(request).organizationId, request.query);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="users-${date}.csv"`)
          .header('cache-control', 'no-store')
          .send(csv);
      },
    );

    app.get(
      '/api/users/email-domains',
      route('listUserEmailDomains', 'The domains new users’ addresses may use', {
        response: { 200: emailDomainsSchema },
      }),
      async (request) =>
        emailDomainsFor(
          db,
          principalOf(request).organizationId,
          deps.config.allowUnverifiedDomains,
          mailHostedHere(deps.config),
        ),
    );

    app.post(
      '/api/users',
      route('addUser', 'Add a user with a first password or an invitation e-mail', {
        body: addUserSchema,
        response: { 201: createdUserSchema },
      }),
      async (request, reply) => reply.status(201).send(await addUser(deps, actorOf(request), request.body)),
    );

    app.get(
      '/api/users/:id',
      route('getUser', 'A user’s details, groups, sessions and apps', {
        params: userIdParamsSchema,
        response: { 200: userDetailSchema },
      }),
      async (request) => getUserDetail(db, actorOf(request), request.params.id),
    );

    app.patch(
      '/api/users/:id',
      route('updateUser', 'Change a user’s name and personal address', {
        params: userIdParamsSchema,
        body: updateUserSchema,
        response: { 200: okSchema },
      }),
      async (request) => {
        await updateUser(db, actorOf(request), request.params.id, request.body);
        return ok;
      },
    );

    app.delete(
      '/api/users/:id',
      route('deleteUser', 'Delete a user; ends their sessions and revokes their tokens', {
        params: userIdParamsSchema,
        response: { 200: okSchema },
      }),
      async (request) => {
        await removeUser(db, actorOf(request), request.params.id);
        return ok;
      },
    );

    app.post(
      '/api/users/:id/suspend',
      route('suspendUser', 'Suspend a user; ends their sessions and revokes their tokens', {
        params: userIdParamsSchema,
        response: { 200: okSchema },
      }),
      async (request) => {
        await suspendUser(db, actorOf(request), request.params.id);
        return ok;
      },
    );

    app.post(
      '/api/users/:id/reactivate',
      route('reactivateUser', 'Let a suspended user sign in again', {
        params: userIdParamsSchema,
        response: { 200: okSchema },
      }),
      async (request) => {
        await reactivateUser(db, actorOf(request), request.params.id);
        return ok;
      },
    );

    app.put(
      '/api/users/:id/password',
      route('setUserPassword', 'Set a new password for a user (ends their sessions)', {
        params: userIdParamsSchema,
        body: setPasswordSchema,
        response: { 200: okSchema },
      }),
      async (request) => {
        await adminSetPassword(deps, actorOf(request), request.params.id, request.body.password);
        return ok;
      },
    );

    app.post(
      '/api/users/:id/password-link',
      route('sendUserPasswordLink', 'E-mail a set-password link: the invitation again, or a password reset', {
        params: userIdParamsSchema,
        response: { 200: z.object({ mailSent: z.boolean(), sentTo: z.string() }) },
      }),
      async (request) => sendPasswordLink(deps, actorOf(request), request.params.id),
    );

    app.delete(
      '/api/users/:id/sessions/:sessionId',
      route('endUserSession', 'End one of a user’s sessions', {
        params: userSessionParamsSchema,
        response: { 200: okSchema },
      }),
      async (request) => {
        await endSession(db, actorOf(request), request.params.id, request.params.sessionId);
        return ok;
      },
    );
  };
