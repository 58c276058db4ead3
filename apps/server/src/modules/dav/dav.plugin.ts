import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { davAuthRoutes } from './dav-auth.routes.ts';
import { registerAddressBookJob } from './dav-address-book.job.ts';
import { registerDavCollectionsJob } from './dav-collections.job.ts';

/**
 * Calendars and contacts (issue 33, docs/dav.md): Radicale serves CalDAV and CardDAV behind Caddy,
 * which asks Atrium who each request signs in as; Atrium also makes each user's default
 * collections, keeps the organisation's address book in every account, and removes a deleted user's.
 */
export async function registerDav(
  app: FastifyInstance,
  deps: { db: Db; config: Config; provider: Provider },
): Promise<void> {
  await app.register(davAuthRoutes(deps));
  registerDavCollectionsJob(app.jobs, deps.config);
  registerAddressBookJob(app.jobs, deps.db, deps.config);
}
