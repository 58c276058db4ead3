import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { ensureMailClient } from '../../src/modules/mail/mail-client.ts';
import { masterPassword } from '../../src/modules/mail/config/mail-master-user.ts';
import { rspamdMapToken } from '../../src/modules/mail-protection/rspamd-maps.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  type TestOrganization,
  type TestUser,
} from '../support/fixtures.ts';
import { TestMailServers } from '../support/mail-servers.ts';
import type { TestRspamd } from '../support/rspamd-servers.ts';
import type { AppDeps } from '../../src/app.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain } from '../users/helpers.ts';

/** The plan the mail tests' organisation is on: mailboxes of 1 MiB, so a quota is easy to meet. */
const TINY_PLAN = { key: 'tiny', title: 'Tiny', mailboxQuotaMb: 1, maxDomains: 5, apps: 'all' };

/** Atrium listening, Postfix and Dovecot configured by mail-config, one organisation with a mail domain. */
export interface MailWorld {
  server: TestApp;
  mail: TestMailServers;
  org: TestOrganization;
  domain: string;
  user(): Promise<TestUser>;
  close(): Promise<void>;
}

/** `env`: more settings for the Atrium under test (a loopback DNS server, a loopback mailbox for codes). */
export async function createMailWorld(
  options: {
    env?: Record<string, string>;
    /** Settings that name the mail servers' ports (picked before Atrium starts). */
    envFor?: (ports: TestMailServers['ports']) => Record<string, string>;
    deps?: Partial<AppDeps>;
    /** rspamd's controller (or a stand-in), which moving mail into or out of Junk teaches. */
    rspamdLearn?: { controller: string; passwordFile?: string };
    /** rspamd and Redis as Postfix's milter (test/support/rspamd-servers.ts). */
    rspamd?: TestRspamd;
  } = {},
): Promise<MailWorld> {
  const mail = await TestMailServers.prepare();
  const planFile = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-mail-plans-')), 'plans.json');
  writeFileSync(planFile, JSON.stringify({ plans: [TINY_PLAN] }));
  const server = await createTestApp({
    listen: true,
    env: { ...mail.env, PLAN_CATALOG: planFile, ...options.env, ...options.envFor?.(mail.ports) },
    ...(options.deps ? { deps: options.deps } : {}),
  });
  try {
    await mail.start({
      url: server.config.publicUrl.href,
      client: await ensureMailClient(server.db, server.config),
      masterPassword: masterPassword(server.config.secret),
      rspamdMapToken: rspamdMapToken(server.config.secret),
      ...(options.rspamdLearn ? { rspamdLearn: options.rspamdLearn } : {}),
      ...(options.rspamd ? { rspamd: options.rspamd } : {}),
    });
  } catch (error) {
    await server.close();
    await mail.close().catch(() => undefined);
    throw error;
  }
  const domain = `m${randomBytes(4).toString('hex')}.example.com`;
  const org = await createOrganizationWithAdmin(server.db, {
    subscription: { planKey: 'tiny', seats: 100, status: 'active' },
  });
  await addDomain(server.db, org.id, domain);
  let n = 0;
  return {
    server,
    mail,
    org,
    domain,
    user: () =>
      createUser(server.db, org.id, { email: `person${++n}-${randomBytes(3).toString('hex')}@${domain}` }),
    async close() {
      await mail.close();
      await server.close();
    },
  };
}

/**
 * Sends through Postfix: to its port 25 service as another mail server would, or with `auth` to
 * its submission service as a user's mail client does (SASL through Dovecot).
 */
export async function sendMail(
  world: Pick<MailWorld, 'mail'>,
  message: {
    from: string;
    to: string;
    subject: string;
    text: string;
    /** More header fields, e.g. `Precedence: bulk` or rspamd's `X-Spam: Yes`. */
    headers?: Record<string, string>;
    /** The SMTP envelope, e.g. with `size` for MAIL FROM's SIZE= (a client declaring the size). */
    envelope?: { from: string; to: string; size?: number };
  },
  auth?: { user: string; pass: string },
): Promise<void> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: auth ? world.mail.ports.submission : world.mail.ports.smtp,
    secure: false,
    ignoreTLS: true,
    name: 'sender.example.net',
    ...(auth ? { auth } : {}),
  });
  try {
    await transport.sendMail(message);
  } finally {
    transport.close();
  }
}

/** An IMAP session at Dovecot; `pass` for an app password, `accessToken` for OAuth. */
export async function imapSignIn(
  world: Pick<MailWorld, 'mail'>,
  auth: { user: string; pass?: string; accessToken?: string },
): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port: world.mail.ports.imap,
    secure: false,
    auth,
    logger: false,
  });
  await client.connect();
  return client;
}

/** The subjects in a mailbox's INBOX, read over IMAP. */
export async function inboxSubjects(client: ImapFlow): Promise<string[]> {
  const lock = await client.getMailboxLock('INBOX');
  try {
    const subjects: string[] = [];
    if (typeof client.mailbox === 'object' && client.mailbox.exists === 0) return subjects;
    for await (const message of client.fetch('1:*', { envelope: true })) {
      subjects.push(message.envelope?.subject ?? '');
    }
    return subjects;
  } finally {
    lock.release();
  }
}
