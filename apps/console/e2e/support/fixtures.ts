import { existsSync } from 'node:fs';
import path from 'node:path';
import { test as base, expect, type BrowserContext } from '@playwright/test';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../../../server/src/config.ts';
import type { Database } from '../../../server/src/db/database.ts';
import { createOrganization } from '../../../server/src/modules/organizations/create-organization.ts';
import { masterPassword } from '../../../server/src/modules/mail/config/mail-master-user.ts';
import { ensureMailClient } from '../../../server/src/modules/mail/mail-client.ts';
import { Mailbox } from '../../../server/test/support/mailbox.ts';
import { TestMailServers } from '../../../server/test/support/mail-servers.ts';
import { TestDnsServer } from '../../../server/test/support/dns-server.ts';
import { createTestApp } from '../../../server/test/support/test-app.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
  type TestUser,
} from '../../../server/test/support/fixtures.ts';

export interface Atrium {
  /** Where the browser reaches the real server, e.g. http://127.0.0.1:41234 */
  url: string;
  app: FastifyInstance;
  config: Config;
  db: Kysely<Database>;
  mailbox: Mailbox;
  dns: TestDnsServer;
  /**
   * Debian's Postfix and Dovecot, configured by mail-config and asking this Atrium, when the file
   * said `test.use({ atriumMail: true })`: port 25 and IMAP on loopback (mail-world.ts's helpers).
   */
  mail?: TestMailServers;
}

const consoleDist = path.resolve(import.meta.dirname, '../../dist/index.html');

/**
 * One real Atrium per worker: the production console build served by the real server on a
 * fresh database, sending mail to a loopback SMTP server and resolving through a loopback DNS server.
 */
export const test = base.extend<
  { signInAs: (user: TestUser) => Promise<void> },
  { atrium: Atrium; atriumEnv: Record<string, string>; atriumMail: boolean }
>({
  /** Operator settings of this file's Atrium (`test.use({ atriumEnv: { MAIL_HOST: … } })`). */
  atriumEnv: [{}, { scope: 'worker', option: true }],
  /** Postfix and Dovecot beside this file's Atrium (started once per worker). */
  atriumMail: [false, { scope: 'worker', option: true }],
  atrium: [
    async ({ atriumEnv, atriumMail }, use) => runAtrium(use, { env: atriumEnv, mail: atriumMail }),
    { scope: 'worker', timeout: 120_000 },
  ],
  baseURL: async ({ atrium }, use) => use(atrium.url),
  /** Puts a console session for `user` into this test's browser (no sign-in screens). */
  signInAs: async ({ atrium, context }, use) => {
    await use(async (user) => addSessionCookie(context, atrium, user));
  },
});

/**
 * Starts the loopback mailbox, the loopback DNS server and the real server on a fresh database,
 * hands the running Atrium to `use`, then stops all three. `publicHost` names the server in
 * PUBLIC_URL (127.0.0.1 unless said); `env` adds operator settings.
 */
export async function runAtrium(
  use: (atrium: Atrium) => Promise<void>,
  options: { publicHost?: string; env?: Record<string, string>; mail?: boolean } = {},
): Promise<void> {
  if (!existsSync(consoleDist)) throw new Error('Build the console first: npm run build');
  const mailbox = await Mailbox.start();
  const dns = await TestDnsServer.start();
  const mail = options.mail ? await TestMailServers.prepare() : undefined;
  const server = await createTestApp({
    env: { SMTP_URL: mailbox.url, DNS_SERVERS: dns.address, ...e2eEnv(), ...mail?.env, ...options.env },
    listen: true,
    publicHost: options.publicHost,
  });
  await mail?.start({
    url: server.config.publicUrl.href,
    client: await ensureMailClient(server.db, server.config),
    masterPassword: masterPassword(server.config.secret),
  });
  await use({
    url: server.config.publicUrl.origin,
    app: server.app,
    config: server.config,
    db: server.db,
    mailbox,
    dns,
    ...(mail ? { mail } : {}),
  });
  await mail?.close();
  await server.close();
  await mailbox.close();
  await dns.close();
}

/**
 * Settings for the in-process server; PUBLIC_URL follows the port it listens on. The apps the
 * tests install run on this host (loopback), as an operator's own apps may: their back-channel
 * logout URIs are allowed as the operator allows them, with BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS.
 */
function e2eEnv(): Record<string, string> {
  return { LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'silent', BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS: 'true' };
}

async function addSessionCookie(context: BrowserContext, atrium: Atrium, user: TestUser): Promise<void> {
  const session = await signInAs(atrium.db, user);
  const [name, value] = session.cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: atrium.url, httpOnly: true, sameSite: 'Lax' }]);
}

/**
 * An organisation made the way the operator command makes one (with its cloud-storage app), its
 * admin Ada signed in to this test's browser; its site name starts with `prefix`.
 */
export async function signInAsNewAdmin(
  atrium: Atrium,
  signIn: (user: TestUser) => Promise<void>,
  organization: { prefix: string; name: string },
): Promise<void> {
  const site = `${organization.prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const email = `ada@${site}.example.com`;
  const created = await createOrganization(atrium.db, atrium.config, {
    name: organization.name,
    siteName: site,
    admin: { email, firstName: 'Ada', lastName: 'Lovelace', passwordHash: null },
  });
  await signIn({ id: created.adminUserId, email, organizationId: created.organizationId });
}

export { createOrganizationWithAdmin, createUser, expect, type TestOrganization, type TestUser };
