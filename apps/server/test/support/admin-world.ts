import type { Env } from '../../src/config.ts';
import { as } from '../users/helpers.ts';
import { TestDnsServer } from './dns-server.ts';
import {
  createOrganizationWithAdmin,
  signInAs,
  type TestOrganization,
  type TestSession,
} from './fixtures.ts';
import { createTestApp, type TestApp } from './test-app.ts';
import { useStarted } from './use-started.ts';

/** The real app on a fresh database, and an organisation with its admin (not signed in). */
export interface OrganizationWorld extends TestApp {
  org: TestOrganization;
}

/** An organisation world whose admin is signed in to the console. */
export interface AdminWorld extends OrganizationWorld {
  /** The admin's console session (headers for `app.inject`). */
  adminSession: TestSession;
  /** The admin's JSON client over that session. */
  admin: ReturnType<typeof as>;
}

interface AdminWorldOptions {
  env?: Env;
  org?: Parameters<typeof createOrganizationWithAdmin>[1];
}

export async function startOrganizationWorld(options: AdminWorldOptions = {}): Promise<OrganizationWorld> {
  const server = await createTestApp({ env: options.env });
  return { ...server, org: await createOrganizationWithAdmin(server.db, options.org) };
}

/** An organisation world for the tests of a file or describe block (see `useStarted`). */
export function useOrganizationWorld(options: AdminWorldOptions = {}): OrganizationWorld {
  return useStarted(() => startOrganizationWorld(options));
}

export async function startAdminWorld(options: AdminWorldOptions = {}): Promise<AdminWorld> {
  const world = await startOrganizationWorld(options);
  const adminSession = await signInAs(world.db, world.org.admin);
  return { ...world, adminSession, admin: as(world, adminSession) };
}

/** An admin world for the tests of a file or describe block (see `useStarted`). */
export function useAdminWorld(options: AdminWorldOptions = {}): AdminWorld {
  return useStarted(() => startAdminWorld(options));
}

/** An admin world whose app resolves names with a test DNS server (DNS_SERVERS). */
export function useAdminWorldWithDns(options: AdminWorldOptions = {}): AdminWorld & { dns: TestDnsServer } {
  return useStarted(async () => {
    const dns = await TestDnsServer.start();
    const world = await startAdminWorld({
      ...options,
      env: { DNS_SERVERS: dns.address, ...options.env },
    }).catch(async (error: unknown) => {
      await dns.close();
      throw error;
    });
    return {
      ...world,
      dns,
      async close() {
        await world.close();
        await dns.close();
      },
    };
  });
}
