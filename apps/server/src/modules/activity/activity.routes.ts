import { Readable } from 'node:stream';
import {
  activityActorsSchema,
  activityFilterSchema,
  activityListQuerySchema,
  activityListSchema,
} from '@atrium/contracts/activity';
import { apiErrorSchema } from '@atrium/contracts/api-error';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { activityActors, activityCsv, activityPage } from './activity.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const tags = ['activity'];

const route = routeOptions({ config: { access: 'admin' }, tags });

/**
 * The organisation's activity log, for admins, read-only: entries are appended by the other
 * areas' services through recordActivity, and nothing here (or anywhere) updates or deletes them.
 */
export const activityRoutes =
  ({ db }: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/activity',
      route(
        'listActivity',
        'The organisation’s activity log, newest first, filtered by actor, kind and date',
        { querystring: activityListQuerySchema, response: { 200: activityListSchema, 400: apiErrorSchema } },
      ),
      async (request) => activityPage(db, principalOf(request).organizationId, request.query),
    );

    app.get(
      '/api/activity/actors',
      route('listActivityActors', 'Who appears in the activity log (for the actor filter)', {
        response: { 200: activityActorsSchema },
      }),
      async (request) => activityActors(db, principalOf(request).organizationId),
    );

    app.get(
      '/api/activity/export',
      route('exportActivity', 'The filtered activity log as CSV (safe to open in a spreadsheet)', {
        querystring: activityFilterSchema,
        produces: ['text/csv'],
        response: { 200: z.string().describe('CSV, UTF-8 with a byte-order mark'), 400: apiErrorSchema },
      }),
      async (request, reply) => {
        const { organizationId } = principalOf(request);
        const day = new Date().toISOString().slice(0, 10);
        return (
          reply
            .header('content-type', 'text/csv; charset=utf-8')
            .header('content-disposition', `attachment; filename="activity-${day}.csv"`)
            .header('cache-control', 'no-store')
            // A stream is sent as it is (no serializer); the schema above only documents it.
            .send(Readable.from(activityCsv(db, organizationId, request.query)) as unknown as string)
        );
      },
    );
  };
