import type { FastifyContextConfig, FastifySchema } from 'fastify';

/** What the routes of one file share: who may call them (and their rate limit), and their OpenAPI tags. */
export interface RouteDefaults {
  config: FastifyContextConfig;
  tags: string[];
}

/**
 * Route options from what is a route's own: its operation id, its summary, its zod schemas and,
 * where it differs from its file's, its `config`. Every /api route needs `config.access` and
 * OpenAPI tags (auth-guard.ts refuses a route without access); a route file states them once:
 *
 *   const route = routeOptions({ config: { access: 'admin' }, tags: ['users'] });
 *   app.get('/api/users/:id', route('getUser', 'A user’s details', { params, response }), handler);
 */
export function routeOptions(defaults: RouteDefaults) {
  return <S extends FastifySchema>(
    operationId: string,
    summary: string,
    schema: S,
    config: FastifyContextConfig = defaults.config,
  ) => ({ config, schema: { operationId, tags: defaults.tags, summary, ...schema } });
}
