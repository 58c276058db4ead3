import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listUsersQuerySchema } from '@atrium/contracts/users';
import { z } from 'zod';
import type { Db } from '../src/db/database.ts';
import { principalOf } from '../src/plugins/auth-guard.ts';
import { toSummary } from '../src/modules/users/users-list.service.ts';
import { groupsOfUsers, usersPageQuery } from '../src/modules/users/users-list.repository.ts';

/**
 * Benchmark only: the users list endpoint written with OFFSET instead of a keyset cursor —
 * the same filter, sort, page size, groups query and response — for comparison.
 */
export const offsetRoutes =
  (db: Db): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/bench/users-offset',
      {
        config: { access: 'admin' },
        schema: {
          operationId: 'benchUsersOffset',
          querystring: listUsersQuerySchema
            .omit({ cursor: true })
            .extend({ offset: z.coerce.number().int().min(0) }),
        },
      },
      async (request) => {
        const { offset, ...filter } = request.query;
        const orgId = principalOf(request).organizationId;
        const rows = await usersPageQuery(db, orgId, filter, undefined, 51).offset(offset).execute();
        const page = rows.slice(0, 50);
        const groups = await groupsOfUsers(
          db,
          orgId,
          page.map((r) => r.id),
        );
        return { users: page.map((r) => toSummary(r, groups.get(r.id) ?? [])), more: rows.length > 50 };
      },
    );
  };
