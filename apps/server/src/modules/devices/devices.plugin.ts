import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { deviceSetupRoutes } from './device-setup.routes.ts';
import { deleteExpiredProfileLinks } from './devices.repository.ts';
import { discoveryRoutes } from './discovery.routes.ts';

/**
 * Devices (issue 33): how clients find the servers from an address alone, and "Set up a device"
 * on /profile. Where the servers are is said once, in device-endpoints.ts.
 */
export async function registerDevices(app: FastifyInstance, deps: { db: Db; config: Config }): Promise<void> {
  // CalDAV and CardDAV clients may ask .well-known with PROPFIND (RFC 6764 §5).
  if (!app.supportedMethods.includes('PROPFIND')) app.addHttpMethod('PROPFIND', { hasBody: true });
  await app.register(discoveryRoutes(deps));
  await app.register(deviceSetupRoutes(deps));
  // Every 10 minutes: links not opened in time go, with the sealed passwords they held.
  app.jobs.addHousekeeping(() => deleteExpiredProfileLinks(deps.db));
}
