import type { FastifyInstance } from 'fastify';
import { findUnstorableText, UNSTORABLE_MESSAGE } from '@atrium/contracts/text';
import { AppError } from '../lib/errors.ts';

/**
 * Refuses, before any route's own validation, a request to the API whose path parameters, query
 * or body hold a string (or key) with a NUL or a lone surrogate: PostgreSQL cannot store such text
 * and would fail the query as a server error. One rule for every string field of every route, so
 * no schema has to remember it; the answer is the API's 400 naming the field.
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    // /api routes only: the provider under /oidc has its own guard and error format (oidc/mount.ts).
    if (!request.routeOptions.config.access) return;
    const parts: Array<[string, unknown]> = [
      ['params', request.params],
      ['query', request.query],
      ['body', request.body],
    ];
    for (const [part, value] of parts) {
      const path = findUnstorableText(value);
      if (path === undefined) continue;
      const field = path || part;
      throw new AppError(400, 'validation_failed', `${field}: ${UNSTORABLE_MESSAGE}`, {
        [field]: UNSTORABLE_MESSAGE,
      });
    }
  });
}
