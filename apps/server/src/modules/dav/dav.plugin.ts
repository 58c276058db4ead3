import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { davAuthRoutes } from './dav-auth.routes.ts';
import { registerDavCollectionsJob } from './dav-collections.job.ts';
import { registerDirectoryCopiesJob } from './directory-copies.job.ts';
import { directoryRoutes, WEBDAV_METHODS } from './directory.routes.ts';

/**
 * Calendars and contacts (issue 33, docs/dav.md): Radicale serves CalDAV and CardDAV behind Caddy,
 * which asks Atrium who each request signs in as; Atrium also makes each user's default
 * collections, serves the organisation's address book itself (one per organisation, read only, at
 * `/dav/<user>/directory/`), and removes a deleted user's collections.
 */
export async function registerDav(
  app: FastifyInstance,
  deps: { db: Db; config: Config; provider: Provider },
): Promise<void> {
  // Atrium answers WebDAV's methods itself for the organisation's address book.
  for (const method of WEBDAV_METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }
  await app.register(davAuthRoutes(deps));
  registerDavCollectionsJob(app.jobs, deps.config);
  await app.register(directoryRoutes(deps));
  registerDirectoryCopiesJob(app.jobs, deps.db, deps.config);
}
