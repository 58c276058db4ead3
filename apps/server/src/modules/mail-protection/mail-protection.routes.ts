import {
  addSenderBody,
  mailProtectionResponse,
  senderEntryParams,
  senderEntrySchema,
  senderListPage,
  senderListQuery,
  spamSettingsSchema,
} from '@atrium/contracts/mail-protection';
import { okSchema } from '@atrium/contracts/users';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { actorOf } from '../organizations/actor.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import {
  addSender,
  getMailProtection,
  getSenders,
  removeSender,
  setSpamSettings,
} from './sender-lists.service.ts';

const TAGS = ['mail'];
const admin = routeOptions({
  config: { access: 'admin', rateLimit: { max: 60, timeWindow: '1 minute' } },
  tags: TAGS,
});
const user = routeOptions({
  config: { access: 'user', rateLimit: { max: 60, timeWindow: '1 minute' } },
  tags: TAGS,
});

/**
 * Spam protection: the organisation's settings and lists on Mail Settings (admins of the
 * organisation), and each person's own allow and block lists on their profile (their own only:
 * the owner is always the signed-in user, never an id from the request).
 */
export const mailProtectionRoutes =
  (deps: { db: Db; config: Config }): FastifyPluginAsyncZod =>
  async (app) => {
    const { db } = deps;
    const orgOwner = (organizationId: string) => ({ organizationId, userId: null });

    app.get(
      '/api/mail/protection',
      admin('getMailProtection', 'Spam sensitivity, greylisting and the plan’s sending limits', {
        response: { 200: mailProtectionResponse },
      }),
      async (request) => getMailProtection(deps, actorOf(request).organizationId),
    );

    app.put(
      '/api/mail/protection/spam',
      admin('setSpamSettings', 'Change spam sensitivity or greylisting; rspamd applies it within a minute', {
        body: spamSettingsSchema,
        response: { 200: mailProtectionResponse },
      }),
      async (request) => {
        const actor = actorOf(request);
        await setSpamSettings(db, actor, request.body);
        return getMailProtection(deps, actor.organizationId);
      },
    );

    app.get(
      '/api/mail/senders',
      admin('listOrganizationSenders', 'A page of 50 of the organisation’s allowed or blocked senders', {
        querystring: senderListQuery,
        response: { 200: senderListPage },
      }),
      async (request) => getSenders(db, orgOwner(actorOf(request).organizationId), request.query),
    );

    app.post(
      '/api/mail/senders',
      admin('addOrganizationSender', 'Allow or block a sender or a domain for the whole organisation', {
        body: addSenderBody,
        response: { 201: senderEntrySchema },
      }),
      async (request, reply) => {
        const actor = actorOf(request);
        return reply
          .status(201)
          .send(await addSender(db, actor, orgOwner(actor.organizationId), request.body));
      },
    );

    app.delete(
      '/api/mail/senders/:entryId',
      admin('removeOrganizationSender', 'Take a sender off the organisation’s list', {
        params: senderEntryParams,
        response: { 200: okSchema },
      }),
      async (request) => {
        const actor = actorOf(request);
        await removeSender(db, actor, orgOwner(actor.organizationId), request.params.entryId);
        return { ok: true as const };
      },
    );

    const own = (request: Parameters<typeof actorOf>[0]) => {
      const actor = actorOf(request);
      return { actor, owner: { organizationId: actor.organizationId, userId: actor.userId } };
    };

    app.get(
      '/api/profile/senders',
      user('listMySenders', 'A page of 50 of your own allowed or blocked senders', {
        querystring: senderListQuery,
        response: { 200: senderListPage },
      }),
      async (request) => getSenders(db, own(request).owner, request.query),
    );

    app.post(
      '/api/profile/senders',
      user('addMySender', 'Allow or block a sender or a domain for your own mail', {
        body: addSenderBody,
        response: { 201: senderEntrySchema },
      }),
      async (request, reply) => {
        const { actor, owner } = own(request);
        return reply.status(201).send(await addSender(db, actor, owner, request.body));
      },
    );

    app.delete(
      '/api/profile/senders/:entryId',
      user('removeMySender', 'Take a sender off your own list', {
        params: senderEntryParams,
        response: { 200: okSchema },
      }),
      async (request) => {
        const { actor, owner } = own(request);
        await removeSender(db, actor, owner, request.params.entryId);
        return { ok: true as const };
      },
    );
  };
