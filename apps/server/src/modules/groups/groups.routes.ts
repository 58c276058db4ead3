import {
  addMembersSchema,
  groupIdParamsSchema,
  groupInputSchema,
  groupMemberParamsSchema,
  groupMembersPageSchema,
  groupSchema,
  groupsListSchema,
  membersQuerySchema,
} from '@atrium/contracts/groups';
import { okSchema } from '@atrium/contracts/users';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Db } from '../../db/database.ts';
import { actorOf } from '../organizations/actor.ts';
import {
  addGroupMembers,
  createGroup,
  deleteGroupById,
  getGroups,
  getMembers,
  removeGroupMember,
  renameGroupById,
} from './groups.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const ADMIN = { access: 'admin' as const };
const TAGS = ['groups'];

const route = routeOptions({ config: ADMIN, tags: TAGS });

/** Groups and their members. Admins only; other orgs' groups are 404. */
export const groupsRoutes =
  (deps: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;

    app.get(
      '/api/groups',
      route('listGroups', 'Every group with its member count', { response: { 200: groupsListSchema } }),
      async (request) => ({ groups: await getGroups(db, actorOf(request)) }),
    );

    app.post(
      '/api/groups',
      route('createGroup', 'Create a group (names are unique ignoring case)', {
        body: groupInputSchema,
        response: { 201: groupSchema },
      }),
      async (request, reply) =>
        reply.status(201).send(await createGroup(db, actorOf(request), request.body.name)),
    );

    app.patch(
      '/api/groups/:id',
      route('renameGroup', 'Rename a group (not Dashboard)', {
        params: groupIdParamsSchema,
        body: groupInputSchema,
        response: { 200: groupSchema },
      }),
      async (request) => renameGroupById(db, actorOf(request), request.params.id, request.body.name),
    );

    app.delete(
      '/api/groups/:id',
      route('deleteGroup', 'Delete a group (not Dashboard)', {
        params: groupIdParamsSchema,
        response: { 200: okSchema },
      }),
      async (request) => {
        await deleteGroupById(db, actorOf(request), request.params.id);
        return { ok: true as const };
      },
    );

    app.get(
      '/api/groups/:id/members',
      route('listGroupMembers', 'A group and a page of 50 of its members, by name', {
        params: groupIdParamsSchema,
        querystring: membersQuerySchema,
        response: { 200: groupMembersPageSchema },
      }),
      async (request) => getMembers(db, actorOf(request), request.params.id, request.query.cursor),
    );

    app.post(
      '/api/groups/:id/members',
      route('addGroupMembers', 'Add users to a group', {
        params: groupIdParamsSchema,
        body: addMembersSchema,
        response: { 200: groupSchema },
      }),
      async (request) => addGroupMembers(db, actorOf(request), request.params.id, request.body.userIds),
    );

    app.delete(
      '/api/groups/:id/members/:userId',
      route('removeGroupMember', 'Remove a member from a group (Dashboard keeps one active member)', {
        params: groupMemberParamsSchema,
        response: { 200: okSchema },
      }),
      async (request) => {
        await removeGroupMember(db, actorOf(request), request.params.id, request.params.userId);
        return { ok: true as const };
      },
    );
  };
