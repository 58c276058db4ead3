import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAppPassword } from '../support/app-passwords.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { signInAs, type TestUser } from '../support/fixtures.ts';
import { TestRspamd } from '../support/rspamd-servers.ts';
import { smtpDeliver, type SmtpReply } from '../support/smtp-dialog.ts';
import { as } from '../users/helpers.ts';
import { createMailWorld, imapSignIn, type MailWorld } from '../mail/mail-world.ts';

// The organisations' spam policy reaching Debian's rspamd without a restart: Mail Settings'
// sensitivity, greylisting and allow list, and a person's own block list, served by Atrium as the
// maps mail-config points rspamd at. The same message from a server without reverse DNS (rspamd
// scores it between Strict's Junk threshold and Relaxed's) goes each way as the settings change. rspamd re-reads the maps on its own (every second in tests, 30 s on a host),
// so each step sends until the outcome changes, within a bound.

const SERVER = { addr: '203.0.113.7', name: '[UNAVAILABLE]', helo: 'unresolved.example.net' };
const SENDER = 'news@plain.example.org';

let dns: TestDnsServer;
let world: MailWorld;
let user: TestUser;
let admin: ReturnType<typeof as>;
let self: ReturnType<typeof as>;
let reader: string;
let n = 0;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  dns.set('plain.example.org', { TXT: [`v=spf1 ip4:${SERVER.addr} -all`], A: [SERVER.addr] });
  const rspamd = await TestRspamd.prepare({ dnsServer: dns.address });
  world = await createMailWorld({ env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '500' }, rspamd });
  user = await world.user();
  admin = as(world.server, await signInAs(world.server.db, world.org.admin));
  self = as(world.server, await signInAs(world.server.db, user));
  reader = (await createAppPassword(world.server, user, 'Reader')).password;
}, 180_000);

afterAll(async () => {
  await world?.close();
  await dns?.close();
});

/** The message, sent once more with a subject of its own; the reply and the subject. */
async function send(): Promise<{ reply: SmtpReply & { stage: string }; subject: string }> {
  const subject = `Weekly offers ${++n}`;
  const data = [
    `From: Shop <${SENDER}>`,
    `To: <${user.email}>`,
    `Subject: ${subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <offer${n}.${Date.now()}@plain.example.org>`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'This week only: everything half price.',
    '',
  ].join('\n');
  const reply = await smtpDeliver({
    port: world.mail.ports.smtp,
    client: SERVER,
    from: SENDER,
    to: user.email,
    data,
  });
  return { reply, subject };
}

/** The X-Spam and X-Spam-Status headers of the delivered message with `subject`, read over IMAP. */
async function spamHeaders(subject: string): Promise<{ spam: string | null; status: string }> {
  await world.mail.drainQueue();
  const imap = await imapSignIn(world, { user: user.email, pass: reader });
  try {
    for (const folder of await imap.list()) {
      const lock = await imap.getMailboxLock(folder.path);
      try {
        if (typeof imap.mailbox === 'object' && imap.mailbox.exists === 0) continue;
        for await (const m of imap.fetch('1:*', { envelope: true, source: true })) {
          if (m.envelope?.subject !== subject) continue;
          const head = (m.source?.toString('utf8') ?? '')
            .split(/\r?\n\r?\n/)[0]!
            .replace(/\r?\n[ \t]+/g, ' ');
          const value = (name: string) =>
            head
              .split(/\r?\n/)
              .find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))
              ?.slice(name.length + 1)
              .trim() ?? null;
          return { spam: value('X-Spam'), status: value('X-Spam-Status') ?? '' };
        }
      } finally {
        lock.release();
      }
    }
  } finally {
    await imap.logout();
  }
  throw new Error(`${subject} was not delivered:\n${world.mail.logs()}`);
}

/** Sends until `done` says the outcome is the one the new settings give (rspamd polled the map). */
async function sendUntil<T>(outcome: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  let value = await outcome();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    value = await outcome();
  }
  return value;
}

const delivered = async () => {
  const { reply, subject } = await send();
  return { reply, headers: reply.code === 250 ? await spamHeaders(subject) : null };
};

it('Relaxed without greylisting, then Strict, then the allow list, then the person’s own block list, each without a restart', async () => {
  // By default the first message from this server is greylisted.
  expect((await send()).reply, world.mail.logs()).toMatchObject({ code: 451 });

  // Relaxed with greylisting off: taken at once, and under Relaxed's Junk threshold.
  expect(
    (await admin.put('/api/mail/protection/spam', { sensitivity: 'relaxed', greylisting: false })).status,
  ).toBe(200);
  const relaxed = await sendUntil(delivered, (r) => r.reply.code === 250);
  expect(relaxed.reply, world.mail.logs()).toMatchObject({ code: 250 });
  expect(relaxed.headers!.spam, relaxed.headers!.status).toBeNull();

  // Strict: the same message is now over the Junk threshold (X-Spam: Yes, which Sieve files in Junk).
  expect(
    (await admin.put('/api/mail/protection/spam', { sensitivity: 'strict', greylisting: false })).status,
  ).toBe(200);
  const strict = await sendUntil(delivered, (r) => r.headers?.spam === 'Yes');
  expect(strict.headers, world.mail.logs()).toMatchObject({ spam: 'Yes' });

  // The organisation allows the sender's domain: delivered without X-Spam, whatever it scores.
  const allowed = await admin.post('/api/mail/senders', { list: 'allow', value: 'plain.example.org' });
  expect(allowed.status).toBe(201);
  const bypass = await sendUntil(delivered, (r) => r.headers?.spam === null);
  expect(bypass.headers, world.mail.logs()).toMatchObject({ spam: null });
  expect(bypass.headers!.status).toMatch(/^No, score=-/);

  // The person blocks the sender for their own mail: refused at SMTP.
  const blocked = await self.post('/api/profile/senders', { list: 'block', value: SENDER });
  expect(blocked.status).toBe(201);
  const refused = await sendUntil(send, (r) => r.reply.code >= 500);
  expect(refused.reply, world.mail.logs()).toMatchObject({ stage: 'end of data', code: 554 });
  expect(refused.reply.text).toContain('does not accept mail from this sender');
}, 180_000);
