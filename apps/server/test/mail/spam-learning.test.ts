import { spawnSync } from 'node:child_process';
import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAppPassword } from '../support/app-passwords.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { TEST_CONTROLLER_PASSWORD, TestRspamd } from '../support/rspamd-servers.ts';
import { createMailWorld, imapSignIn, type MailWorld } from './mail-world.ts';

// Learning from what users move (issue 44 item 2, docs/mail.md "Filters, Junk and Out of office"):
// Debian's Dovecot with IMAPSieve, rspamd and Redis configured by mail-config. A real IMAP client
// moves a message into Junk and another out of it; rspamd's controller counts what it learned.

let dns: TestDnsServer;
let rspamd: TestRspamd;
let world: MailWorld;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  rspamd = await TestRspamd.prepare({ dnsServer: dns.address });
  world = await createMailWorld({ env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '500' }, rspamd });
}, 180_000);

afterAll(async () => {
  await world?.close();
  await dns?.close();
});

/**
 * What rspamd has learned: the controller's count (`rspamc stat`'s "Messages learned"), and per
 * class the counters its Bayes keeps in Redis (hash `RS`: learns_spam, learns_ham), which are
 * current at once (/stat's statfile figures are refreshed from Redis only now and then).
 */
async function stat(): Promise<{ learned: number; spam: number; ham: number }> {
  const response = await fetch(`http://127.0.0.1:${rspamd.ports.controller}/stat`, {
    headers: { Password: TEST_CONTROLLER_PASSWORD },
  });
  expect(response.status).toBe(200);
  const { learned } = (await response.json()) as { learned: number };
  const counter = (field: string) => {
    const read = spawnSync('redis-cli', ['-p', String(rspamd.ports.redis), 'HGET', 'RS', field], {
      encoding: 'utf8',
    });
    expect(read.status, read.stderr).toBe(0);
    return Number(read.stdout.trim() || 0);
  };
  return { learned, spam: counter('learns_spam'), ham: counter('learns_ham') };
}

/** A message long enough for Bayes (rspamd learns nothing from fewer than 11 tokens). */
function message(subject: string, words: string): string {
  return [
    'From: Someone <someone@example.net>',
    'To: <reader@example.com>',
    `Subject: ${subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${subject.replace(/\W/g, '')}.${Date.now()}@example.net>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `${words} ${words} ${subject}`,
    '',
  ].join('\r\n');
}

it('moving a message into Junk raises rspamd’s learned spam; moving one out of Junk its learned ham', async () => {
  const user = await world.user();
  const { password } = await createAppPassword(world.server, user, 'Mail app');
  const imap: ImapFlow = await imapSignIn(world, { user: user.email, pass: password });
  try {
    await imap.mailboxCreate('Junk').catch(() => undefined);
    await imap.append(
      'INBOX',
      message(
        'Exclusive offer',
        'cheap watches replica pills casino bonus winner claim prize unsubscribe limited offer click here now',
      ),
    );
    await imap.append(
      'Junk',
      message(
        'Quarterly figures',
        'attached are the quarterly figures we discussed at the meeting with the auditors on tuesday morning',
      ),
    );
    const before = await stat();

    let lock = await imap.getMailboxLock('INBOX');
    try {
      await imap.messageMove('1:*', 'Junk');
    } finally {
      lock.release();
    }
    await expect.poll(async () => (await stat()).spam, { timeout: 15_000 }).toBe(before.spam + 1);

    lock = await imap.getMailboxLock('Junk');
    try {
      const uids = await imap.search({ subject: 'Quarterly figures' }, { uid: true });
      await imap.messageMove(uids as number[], 'INBOX', { uid: true });
    } finally {
      lock.release();
    }
    await expect.poll(async () => (await stat()).ham, { timeout: 15_000 }).toBe(before.ham + 1);
    const after = await stat();
    expect(after.learned).toBe(before.learned + 2);
    expect(after.spam).toBe(before.spam + 1);
  } finally {
    await imap.logout();
  }
});
