import { apiErrorSchema } from '@atrium/contracts/api-error';
import {
  clearedSchema,
  notificationIdParamsSchema,
  notificationListQuerySchema,
  notificationListSchema,
  unreadCountSchema,
} from '@atrium/contracts/notifications';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Db } from '../../db/database.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import type { Recipient } from './notifications.repository.ts';
import { clearAll, notificationsPage, readAll, readOne } from './notifications.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const tags = ['notifications'];

const route = routeOptions({ config: { access: 'user' }, tags });

/** The caller is always the recipient: no route takes a user or organisation id. */
function recipientOf(request: FastifyRequest): Recipient {
  const { userId, organizationId } = principalOf(request);
  return { userId, organizationId };
}

/** The signed-in user's own notifications: list, mark read (one or all), clear all. */
export const notificationsRoutes =
  ({ db }: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/notifications',
      route('listNotifications', 'The caller’s notifications, newest first, with the unread total', {
        querystring: notificationListQuerySchema,
        response: { 200: notificationListSchema, 400: apiErrorSchema },
      }),
      async (request, reply) => {
        // Polled by every open console: never let a cache answer for the database.
        void reply.header('cache-control', 'no-store');
        return notificationsPage(db, recipientOf(request), request.query);
      },
    );

    app.post(
      '/api/notifications/:id/read',
      route('markNotificationRead', 'Mark one of the caller’s notifications as read', {
        params: notificationIdParamsSchema,
        response: { 200: unreadCountSchema, 400: apiErrorSchema, 404: apiErrorSchema },
      }),
      async (request) => readOne(db, recipientOf(request), request.params.id),
    );

    app.post(
      '/api/notifications/read-all',
      route('markAllNotificationsRead', 'Mark all of the caller’s notifications as read', {
        response: { 200: unreadCountSchema },
      }),
      async (request) => readAll(db, recipientOf(request)),
    );

    app.delete(
      '/api/notifications',
      route('clearNotifications', 'Delete all of the caller’s notifications (clear all)', {
        response: { 200: clearedSchema },
      }),
      async (request) => clearAll(db, recipientOf(request)),
    );
  };
