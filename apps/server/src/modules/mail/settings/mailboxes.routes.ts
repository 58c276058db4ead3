import { mailboxesPage, mailboxesQuery } from '@atrium/contracts/mail-mailboxes';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { actorOf } from '../../organizations/actor.ts';
import { getMailboxes } from './mailboxes.service.ts';
import { routeOptions } from '../../../plugins/route-options.ts';

const route = routeOptions({ config: { access: 'admin' }, tags: ['mail'] });

/** Mail Settings' mail plan: each mailbox's quota and usage. Admins of the organisation only. */
export const mailboxesRoutes =
  (deps: { db: Db; config: Config }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/mail/mailboxes',
      route(
        'listMailboxes',
        "A page of 50 of the organisation's mailboxes in address order, with quota and usage",
        { querystring: mailboxesQuery, response: { 200: mailboxesPage } },
      ),
      async (request) => getMailboxes(deps, actorOf(request).organizationId, request.query),
    );
  };
