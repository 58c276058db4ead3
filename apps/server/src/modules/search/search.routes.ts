import { searchQuerySchema, searchResultsSchema } from '@atrium/contracts/search';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Db } from '../../db/database.ts';
import { principalOf } from '../../plugins/auth-guard.ts';
import { searchOrganization } from './search.service.ts';
import { routeOptions } from '../../plugins/route-options.ts';

const route = routeOptions({ config: { access: 'admin' }, tags: ['search'] });

/** The admin header's search box. Admins only, within the caller's organisation. */
export const searchRoutes =
  ({ db }: { db: Db }): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/search',
      route(
        'search',
        'Users whose name or e-mail holds q, and groups, domains and apps whose name starts with q',
        { querystring: searchQuerySchema, response: { 200: searchResultsSchema } },
      ),
      async (request) =>
        searchOrganization(db, principalOf(request).organizationId, request.query.q, request.query.limit),
    );
  };
