import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppPassword } from '../support/app-passwords.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import type { TestUser } from '../support/fixtures.ts';
import { TestRspamd } from '../support/rspamd-servers.ts';
import { smtpDeliver } from '../support/smtp-dialog.ts';
import { createMailWorld, imapSignIn, type MailWorld } from './mail-world.ts';

// rspamd as Postfix's milter, as install wires it: Debian's rspamd and Redis (each as its own
// user) configured by mail-config, a loopback DNS server with the sending domains' SPF and DMARC
// records. Other servers' messages arrive on port 25 from the addresses they would come from
// (XCLIENT, which only the tests' Postfix allows); users submit on 587. What a sender sees is the
// SMTP reply; what a recipient sees is the delivered message, read over IMAP.

const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';
/** A mail server on the internet with forward and reverse DNS (its name resolves to its address). */
const KNOWN_SERVER = { addr: '203.0.113.7', name: 'mx.sender.example.net', helo: 'mx.sender.example.net' };
/** The only server the strict domains' SPF records allow. */
const AUTHORISED = { addr: '198.51.100.1', name: 'mx.strict.example.net', helo: 'mx.strict.example.net' };
/** A seconds-long greylisting delay (rspamd's default is 5 minutes). */
const GREYLIST_DELAY_S = 3;

let dns: TestDnsServer;
let world: MailWorld;
let rspamd: TestRspamd;
let n = 0;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  dns.set(KNOWN_SERVER.name, { A: [KNOWN_SERVER.addr] });
  dns.set(AUTHORISED.name, { A: [AUTHORISED.addr] });
  // A sender whose SPF record allows the known server.
  dns.set('plain.example.org', { TXT: [`v=spf1 ip4:${KNOWN_SERVER.addr} -all`], A: [KNOWN_SERVER.addr] });
  for (const policy of ['reject', 'quarantine']) {
    dns.set(`${policy}.example.org`, { TXT: [`v=spf1 ip4:${AUTHORISED.addr} -all`], A: [AUTHORISED.addr] });
    dns.set(`_dmarc.${policy}.example.org`, { TXT: [`v=DMARC1; p=${policy}`] });
  }
  rspamd = await TestRspamd.prepare({ dnsServer: dns.address, greylistDelay: GREYLIST_DELAY_S });
  world = await createMailWorld({ env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '500' }, rspamd });
}, 180_000);

afterAll(async () => {
  await world?.close();
  await dns?.close();
});

/**
 * A message with a body of its own: rspamd greylists by the body's hash too, so two tests
 * sending the same text would share one record.
 */
function message(from: string, to: string, body = 'Hello, the figures we talked about are attached.') {
  const subject = `Message ${++n} ${Date.now()}`;
  body = `${body}\n\n${subject}`;
  const data = [
    `From: Sender <${from}>`,
    `To: <${to}>`,
    `Subject: ${subject}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <m${n}.${Date.now()}@${from.split('@')[1]}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    '',
  ].join('\n');
  return { subject, data };
}

/** Every message in the recipient's mailbox (INBOX, Junk, any folder), read over IMAP. */
async function mailbox(user: TestUser): Promise<Array<{ folder: string; subject: string; source: string }>> {
  await world.mail.drainQueue();
  const { password } = await createAppPassword(world.server, user, `Reader ${++n}`);
  const imap = await imapSignIn(world, { user: user.email, pass: password });
  const messages: Array<{ folder: string; subject: string; source: string }> = [];
  try {
    for (const folder of await imap.list()) {
      const lock = await imap.getMailboxLock(folder.path);
      try {
        if (typeof imap.mailbox === 'object' && imap.mailbox.exists === 0) continue;
        for await (const m of imap.fetch('1:*', { envelope: true, source: true })) {
          messages.push({
            folder: folder.path,
            subject: m.envelope?.subject ?? '',
            source: m.source?.toString('utf8') ?? '',
          });
        }
      } finally {
        lock.release();
      }
    }
  } finally {
    await imap.logout();
  }
  return messages;
}

/** The message with exactly `subject` wherever the recipient's mailbox holds it, or undefined. */
async function delivered(user: TestUser, subject: string): Promise<string | undefined> {
  return (await mailbox(user)).find((m) => m.subject === subject)?.source;
}

/** Another server's SMTP session on port 25: `client` is the address (and name) it comes from. */
const fromServer = (client: typeof KNOWN_SERVER, from: string, to: string, data: string) =>
  smtpDeliver({ port: world.mail.ports.smtp, client, from, to, data });

/** A header's values in a message's header section (unfolded). */
function headerValues(source: string, name: string): string[] {
  const head = source.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  return head
    .split(/\r?\n/)
    .filter((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    .map((line) => line.slice(name.length + 1).trim());
}

describe('mail from other servers (port 25, rspamd as milter)', () => {
  it('takes a clean message at once and adds Authentication-Results (one the sender forged is dropped)', async () => {
    const user = await world.user();
    const { subject, data } = message('ceo@reject.example.org', user.email);
    const forged = `Authentication-Results: mail.atrium.test; dkim=pass; dmarc=pass\n${data}`;
    const reply = await fromServer(AUTHORISED, 'ceo@reject.example.org', user.email, forged);
    expect(reply, world.mail.logs()).toMatchObject({ stage: 'end of data', code: 250 });
    const source = await delivered(user, subject);
    expect(source, world.mail.logs()).toBeDefined();
    const results = headerValues(source!, 'Authentication-Results');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatch(/spf=pass/);
    expect(results[0]).toMatch(/dmarc=pass/);
    expect(results[0]).not.toMatch(/dkim=pass/);
    expect(headerValues(source!, 'X-Spam')).toEqual([]);
    expect(headerValues(source!, 'X-Spam-Status')[0]).toMatch(/^No, score=/);
  });

  it('refuses GTUBE at SMTP and delivers nothing', async () => {
    const user = await world.user();
    const { subject, data } = message('news@plain.example.org', user.email, `Test ${GTUBE}`);
    const reply = await fromServer(KNOWN_SERVER, 'news@plain.example.org', user.email, data);
    expect(reply, world.mail.logs()).toMatchObject({ stage: 'end of data', code: 554 });
    expect(await delivered(user, subject)).toBeUndefined();
  });

  it('refuses a message failing SPF and DKIM from a domain that publishes p=reject', async () => {
    const user = await world.user();
    const { subject, data } = message('ceo@reject.example.org', user.email);
    const reply = await fromServer(KNOWN_SERVER, 'ceo@reject.example.org', user.email, data);
    expect(reply, world.mail.logs()).toMatchObject({ stage: 'end of data', code: 554 });
    expect(await delivered(user, subject)).toBeUndefined();
  });

  it('files a message failing DMARC of a p=quarantine domain into Junk, X-Spam: Yes, with Authentication-Results', async () => {
    const user = await world.user();
    const { subject, data } = message('ceo@quarantine.example.org', user.email);
    const reply = await fromServer(KNOWN_SERVER, 'ceo@quarantine.example.org', user.email, data);
    expect(reply, world.mail.logs()).toMatchObject({ stage: 'end of data', code: 250 });
    // Postfix, rspamd and Dovecot's Sieve in one path: the user finds it in Junk, not in INBOX.
    const copies = (await mailbox(user)).filter((m) => m.subject === subject);
    expect(
      copies.map((m) => m.folder),
      world.mail.logs(),
    ).toEqual(['Junk']);
    const source = copies[0]!.source;
    expect(headerValues(source, 'X-Spam')).toEqual(['Yes']);
    const results = headerValues(source, 'Authentication-Results');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatch(/spf=fail/);
    expect(results[0]).toMatch(/dmarc=fail/);
    expect(headerValues(source, 'X-Spam-Status')[0]).toMatch(/^Yes, score=/);
  });

  it('greylists a first message from a server without reverse DNS, and takes the retry after the delay', async () => {
    const user = await world.user();
    const { subject, data } = message('news@plain.example.org', user.email);
    // The address its SPF record allows, but no name: rspamd's score reaches the greylist threshold.
    const unnamed = { addr: KNOWN_SERVER.addr, name: '[UNAVAILABLE]', helo: 'unresolved.example.net' };
    const attempt = () => fromServer(unnamed, 'news@plain.example.org', user.email, data);
    const first = await attempt();
    const firstAt = Date.now();
    expect(first, world.mail.logs()).toMatchObject({ stage: 'end of data', code: 451 });
    expect(first.text).toMatch(/4\.7\.1/);
    // A sending server retries until it is taken: so does the test, until the reply changes.
    let retry = await attempt();
    while (retry.code === 451 && Date.now() - firstAt < (GREYLIST_DELAY_S + 20) * 1000) {
      await new Promise((r) => setTimeout(r, 250));
      retry = await attempt();
    }
    expect(retry, world.mail.logs()).toMatchObject({ stage: 'end of data', code: 250 });
    expect(Date.now() - firstAt).toBeGreaterThanOrEqual(GREYLIST_DELAY_S * 1000 - 1000);
    const source = await delivered(user, subject);
    expect(source, world.mail.logs()).toBeDefined();
    expect(headerValues(source!, 'X-Spam')).toEqual([]);
  });
});

describe('mail from signed-in users (submission, rspamd ahead of OpenDKIM)', () => {
  it('refuses a message carrying GTUBE', async () => {
    const sender = await world.user();
    const recipient = await world.user();
    const { password } = await createAppPassword(world.server, sender, 'Mail app');
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: world.mail.ports.submission,
      secure: false,
      ignoreTLS: true,
      auth: { user: sender.email, pass: password },
    });
    const subject = `Outbound ${++n}`;
    try {
      const sent = transport.sendMail({
        from: sender.email,
        to: recipient.email,
        subject,
        text: `Test ${GTUBE}`,
      });
      await expect(sent).rejects.toMatchObject({ responseCode: 554 });
      // The same user's ordinary message still leaves.
      await transport.sendMail({
        from: sender.email,
        to: recipient.email,
        subject: `${subject} ok`,
        text: 'Hello',
      });
    } finally {
      transport.close();
    }
    // Only the ordinary message arrived.
    expect(
      (await mailbox(recipient)).map((m) => m.subject),
      world.mail.logs(),
    ).toEqual([`${subject} ok`]);
  });
});

describe('while rspamd is down', () => {
  it('defers mail from other servers with a 4xx instead of taking it unchecked', async () => {
    const user = await world.user();
    await rspamd.close();
    const { subject, data } = message('ceo@reject.example.org', user.email);
    const reply = await fromServer(AUTHORISED, 'ceo@reject.example.org', user.email, data);
    expect(reply.code, `${reply.stage}: ${reply.text}\n${world.mail.logs()}`).toBe(451);
    expect(await delivered(user, subject)).toBeUndefined();
  });
});
