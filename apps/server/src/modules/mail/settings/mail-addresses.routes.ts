import {
  addMailAliasBody,
  catchAllParams,
  catchAllsResponse,
  groupAddressesResponse,
  groupAddressParams,
  groupAddressSchema,
  mailAddressInput,
  mailAliasesPage,
  mailAliasesQuery,
  mailAliasParams,
  mailAliasSchema,
  setCatchAllBody,
} from '@atrium/contracts/mail-addresses';
import { okSchema } from '@atrium/contracts/users';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Db } from '../../../db/database.ts';
import { actorOf } from '../../organizations/actor.ts';
import { addAlias, getAliases, removeAlias } from './mail-addresses.service.ts';
import {
  getCatchAlls,
  getGroupAddresses,
  removeCatchAll,
  removeGroupAddress,
  setCatchAll,
  setGroupAddress,
} from './mail-routing.service.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const ADMIN = { access: 'admin' as const };
const TAGS = ['mail'];

const route = routeOptions({ config: ADMIN, tags: TAGS });

/** Mail Settings: users' aliases, group addresses, catch-alls. Admins of the organisation only. */
export const mailAddressesRoutes =
  (deps: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;

    app.get(
      '/api/mail/aliases',
      route(
        'listMailAliases',
        "A page of 50 of the users' aliases in address order; q: the address's start",
        { querystring: mailAliasesQuery, response: { 200: mailAliasesPage } },
      ),
      async (request) => getAliases(db, actorOf(request), request.query),
    );

    app.post(
      '/api/mail/aliases',
      route(
        'addMailAlias',
        'Give a user another address on a verified domain (unique across the deployment)',
        { body: addMailAliasBody, response: { 201: mailAliasSchema } },
      ),
      async (request, reply) => reply.status(201).send(await addAlias(db, actorOf(request), request.body)),
    );

    app.delete(
      '/api/mail/aliases/:aliasId',
      route('removeMailAlias', 'Remove an alias: mail to it is refused from then on', {
        params: mailAliasParams,
        response: { 200: okSchema },
      }),
      async (request) => {
        await removeAlias(db, actorOf(request), request.params.aliasId);
        return { ok: true as const };
      },
    );

    app.get(
      '/api/mail/group-addresses',
      route('listGroupAddresses', 'The groups that have an address (a distribution list to their members)', {
        response: { 200: groupAddressesResponse },
      }),
      async (request) => getGroupAddresses(db, actorOf(request)),
    );

    app.put(
      '/api/mail/group-addresses/:groupId',
      route(
        'setGroupAddress',
        "Give a group its address, or replace it; mail to it goes to every member's mailbox",
        { params: groupAddressParams, body: mailAddressInput, response: { 200: groupAddressSchema } },
      ),
      async (request) => setGroupAddress(db, actorOf(request), request.params.groupId, request.body),
    );

    app.delete(
      '/api/mail/group-addresses/:groupId',
      route('removeGroupAddress', "Remove a group's address", {
        params: groupAddressParams,
        response: { 200: okSchema },
      }),
      async (request) => {
        await removeGroupAddress(db, actorOf(request), request.params.groupId);
        return { ok: true as const };
      },
    );

    app.get(
      '/api/mail/catch-alls',
      route('listCatchAlls', 'Each verified domain and where mail to its unknown addresses goes', {
        response: { 200: catchAllsResponse },
      }),
      async (request) => getCatchAlls(db, actorOf(request)),
    );

    app.put(
      '/api/mail/catch-alls/:domainId',
      route('setCatchAll', "Deliver mail to the domain's unknown addresses to one user or group", {
        params: catchAllParams,
        body: setCatchAllBody,
        response: { 200: catchAllsResponse },
      }),
      async (request) => {
        const actor = actorOf(request);
        await setCatchAll(db, actor, request.params.domainId, request.body);
        return getCatchAlls(db, actor);
      },
    );

    app.delete(
      '/api/mail/catch-alls/:domainId',
      route('removeCatchAll', "Remove the domain's catch-all: its unknown addresses are refused again", {
        params: catchAllParams,
        response: { 200: okSchema },
      }),
      async (request) => {
        await removeCatchAll(db, actorOf(request), request.params.domainId);
        return { ok: true as const };
      },
    );
  };
