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
import { actorOf, type Actor } from '../organizations/actor.ts';
import { routeOptions } from '../../plugins/route-options.ts';
import {
  addSender,
  getMailProtection,
  getSenders,
  removeSender,
  setSpamSettings,
} from './sender-lists.service.ts';
import type { ListOwner } from './sender-lists.repository.ts';

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

    senderRoutes(app, db, {
      base: '/api/mail/senders',
      route: admin,
      whose: 'the organisation’s',
      name: 'OrganizationSender',
      owner: (actor) => ({ organizationId: actor.organizationId, userId: null }),
    });
    senderRoutes(app, db, {
      base: '/api/profile/senders',
      route: user,
      whose: 'your own',
      name: 'MySender',
      owner: (actor) => ({ organizationId: actor.organizationId, userId: actor.userId }),
    });
  };

/**
 * One owner's lists: read a page, add, remove. The owner comes from the session (the
 * organisation, or the signed-in person), never from the request.
 */
function senderRoutes(
  app: Parameters<FastifyPluginAsyncZod>[0],
  db: Db,
  o: {
    base: '/api/mail/senders' | '/api/profile/senders';
    route: typeof admin;
    whose: string;
    name: string;
    owner: (actor: Actor) => ListOwner;
  },
) {
  app.get(
    o.base,
    o.route(`list${o.name}s`, `A page of 50 of ${o.whose} allowed or blocked senders`, {
      querystring: senderListQuery,
      response: { 200: senderListPage },
    }),
    async (request) => getSenders(db, o.owner(actorOf(request)), request.query),
  );
  app.post(
    o.base,
    o.route(`add${o.name}`, `Allow or block a sender or a domain on ${o.whose} lists`, {
      body: addSenderBody,
      response: { 201: senderEntrySchema },
    }),
    async (request, reply) => {
      const actor = actorOf(request);
      return reply.status(201).send(await addSender(db, actor, o.owner(actor), request.body));
    },
  );
  app.delete(
    `${o.base}/:entryId`,
    o.route(`remove${o.name}`, `Take a sender off ${o.whose} lists`, {
      params: senderEntryParams,
      response: { 200: okSchema },
    }),
    async (request) => {
      const actor = actorOf(request);
      await removeSender(db, actor, o.owner(actor), request.params.entryId);
      return { ok: true as const };
    },
  );
}
