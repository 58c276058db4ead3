import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/operator/doctor/check.ts';
import { PIGEONHOLE_FILES, sieveChecks } from '../../src/operator/doctor/sieve-checks.ts';
import type { HostLayout } from '../../src/operator/host-layout.ts';
import { createAppPassword } from '../support/app-passwords.ts';
import { createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { createMailWorld, imapSignIn, sendMail, type MailWorld } from './mail-world.ts';

// Dovecot's Pigeonhole with Debian's Postfix and Dovecot (docs/mail.md, "Filters, Junk and Out of
// office"): spam marked by rspamd is filed into Junk, the out-of-office reply Atrium serves from
// its dict socket answers a sender once, and moving mail into or out of Junk reaches rspamd's
// controller through rspamc (here a loopback stand-in that records what it is taught).

/** rspamd's controller as rspamc sees it: POST /learnspam and /learnham, answered with success. */
class LearnReceiver {
  readonly learned: Array<{ path: string; body: string }> = [];
  private server: Server | undefined;
  port = 0;

  async start(): Promise<void> {
    this.port = await freePort();
    this.server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        this.learned.push({ path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
        response.setHeader('content-type', 'application/json');
        response.end('{"success":true}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const receiver = new LearnReceiver();
let world: MailWorld;

beforeAll(async () => {
  await receiver.start();
  world = await createMailWorld({ rspamdLearn: { controller: `127.0.0.1:${receiver.port}` } });
}, 60_000);

afterAll(async () => {
  await world?.close();
  await receiver.close();
});

const passwords = new Map<string, string>();

async function session(user: TestUser): Promise<ImapFlow> {
  let password = passwords.get(user.id);
  if (!password) {
    password = (await createAppPassword(world.server, user, 'Mail app')).password;
    passwords.set(user.id, password);
  }
  return imapSignIn(world, { user: user.email, pass: password });
}

/** Subjects per folder path, and the folders' special uses. */
async function folders(imap: ImapFlow) {
  const list = await imap.list();
  const subjects: Record<string, string[]> = {};
  for (const folder of list) {
    const lock = await imap.getMailboxLock(folder.path);
    try {
      subjects[folder.path] = [];
      if (typeof imap.mailbox === 'object' && imap.mailbox.exists > 0) {
        for await (const m of imap.fetch('1:*', { envelope: true }))
          subjects[folder.path]!.push(m.envelope?.subject ?? '');
      }
    } finally {
      lock.release();
    }
  }
  return { subjects, specialUse: Object.fromEntries(list.map((f) => [f.path, f.specialUse ?? ''])) };
}

const deliver = async (message: Parameters<typeof sendMail>[1]) => {
  await sendMail(world, message);
  // Out-of-office replies enter Postfix during delivery, so an empty queue has delivered them too.
  await world.mail.drainQueue();
};

describe('Junk', () => {
  it('files a message rspamd marked as spam into Junk (special-use \\Junk), the rest into the inbox', async () => {
    const ann = await world.user();
    await deliver({ from: 'friend@example.net', to: ann.email, subject: 'Lunch?', text: 'x' });
    await deliver({
      from: 'spammer@example.net',
      to: ann.email,
      subject: 'You won',
      text: 'x',
      headers: { 'X-Spam': 'Yes' },
    });
    const imap = await session(ann);
    try {
      const { subjects, specialUse } = await folders(imap);
      expect(subjects, world.mail.logs()).toMatchObject({ INBOX: ['Lunch?'], Junk: ['You won'] });
      expect(specialUse.Junk).toBe('\\Junk');
    } finally {
      await imap.logout();
    }
  });

  it('moving a message into Junk teaches rspamd it is spam, and out of Junk that it is not', async () => {
    const bea = await world.user();
    await deliver({ from: 'news@example.net', to: bea.email, subject: 'Cheap pills', text: 'spammy body' });
    await deliver({
      from: 'colleague@example.net',
      to: bea.email,
      subject: 'Minutes',
      text: 'real mail',
      headers: { 'X-Spam': 'Yes' },
    });
    const imap = await session(bea);
    try {
      const before = receiver.learned.length;
      let lock = await imap.getMailboxLock('INBOX');
      try {
        await imap.messageMove('1:*', 'Junk');
      } finally {
        lock.release();
      }
      await expect
        .poll(() => receiver.learned.slice(before), { timeout: 10_000 })
        .toEqual([{ path: '/learnspam', body: expect.stringContaining('Subject: Cheap pills') }]);
      lock = await imap.getMailboxLock('Junk');
      try {
        const uids = await imap.search({ subject: 'Minutes' }, { uid: true });
        expect(uids).toHaveLength(1);
        await imap.messageMove(uids as number[], 'INBOX', { uid: true });
      } finally {
        lock.release();
      }
      await expect
        .poll(() => receiver.learned.slice(before + 1), { timeout: 10_000 })
        .toEqual([{ path: '/learnham', body: expect.stringContaining('Subject: Minutes') }]);
    } finally {
      await imap.logout();
    }
  });
});

describe('out of office', () => {
  async function setOutOfOffice(user: TestUser, body: Record<string, unknown>) {
    const { headers } = await signInAs(world.server.db, user);
    const response = await world.server.app.inject({
      method: 'PUT',
      url: '/api/profile/out-of-office',
      headers,
      payload: body,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { outOfOffice: { activeNow: boolean } };
  }

  const today = new Date();
  const day = (offset: number) => {
    const d = new Date(today.getTime() + offset * 86_400_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  };

  async function inbox(user: TestUser) {
    const imap = await session(user);
    try {
      return (await folders(imap)).subjects.INBOX ?? [];
    } finally {
      await imap.logout();
    }
  }

  it('answers a sender’s first message once, not their second, nor bulk mail or a no-reply sender', async () => {
    const away = await world.user();
    const set = await setOutOfOffice(away, {
      enabled: true,
      firstDay: day(-1),
      lastDay: day(3),
      subject: 'Away until Monday',
      message: 'I am away; Ben answers urgent questions.',
    });
    expect(set.outOfOffice.activeNow).toBe(true);
    const sender = await world.user();
    const bulk = await world.user();
    const robot = await createUser(world.server.db, world.org.id, {
      email: `noreply-${randomBytes(3).toString('hex')}@${world.domain}`,
    });

    await deliver({ from: sender.email, to: away.email, subject: 'Question', text: 'x' });
    await deliver({ from: sender.email, to: away.email, subject: 'Question again', text: 'x' });
    await deliver({
      from: bulk.email,
      to: away.email,
      subject: 'Newsletter',
      text: 'x',
      headers: { Precedence: 'bulk' },
    });

    expect(await inbox(sender), world.mail.logs()).toEqual(['Away until Monday']);
    await deliver({ from: robot.email, to: away.email, subject: 'Your receipt', text: 'x' });

    expect(await inbox(sender), world.mail.logs()).toEqual(['Away until Monday']);
    expect(await inbox(bulk)).toEqual([]);
    expect(await inbox(robot)).toEqual([]);
    expect((await inbox(away)).sort()).toEqual(['Newsletter', 'Question', 'Question again', 'Your receipt']);
  });

  it('answers mail sent to one of the person’s aliases too', async () => {
    const away = await world.user();
    const admin = await signInAs(world.server.db, world.org.admin);
    const alias = await world.server.app.inject({
      method: 'POST',
      url: '/api/mail/aliases',
      headers: admin.headers,
      payload: {
        userId: away.id,
        localPart: `hello-${randomBytes(3).toString('hex')}`,
        domain: world.domain,
      },
    });
    expect(alias.statusCode, alias.body).toBeLessThan(300);
    const aliasAddress = (alias.json() as { address: string }).address;
    await setOutOfOffice(away, {
      enabled: true,
      firstDay: day(0),
      lastDay: day(1),
      subject: 'Away today',
      message: 'Back tomorrow.',
    });
    const sender = await world.user();
    await deliver({ from: sender.email, to: aliasAddress, subject: 'To the alias', text: 'x' });
    expect(await inbox(away)).toEqual(['To the alias']);
    expect(await inbox(sender), world.mail.logs()).toEqual(['Away today']);
  });

  it('takes effect at once: off, or outside its days, nobody is answered', async () => {
    const away = await world.user();
    const sender = await world.user();
    const base = { subject: 'Away', message: 'Back soon.' };
    await setOutOfOffice(away, { ...base, enabled: false, firstDay: day(-1), lastDay: day(3) });
    await deliver({ from: sender.email, to: away.email, subject: 'While off', text: 'x' });
    const later = await setOutOfOffice(away, { ...base, enabled: true, firstDay: day(2), lastDay: day(5) });
    expect(later.outOfOffice.activeNow).toBe(false);
    await deliver({ from: sender.email, to: away.email, subject: 'Before the days', text: 'x' });
    expect(await inbox(sender), world.mail.logs()).toEqual([]);
    // On for today: the very next message is answered.
    await setOutOfOffice(away, { ...base, enabled: true, firstDay: day(0), lastDay: day(0) });
    await deliver({ from: sender.email, to: away.email, subject: 'Now', text: 'x' });
    expect(await inbox(sender), world.mail.logs()).toEqual(['Away']);
  });
});

describe('doctor', () => {
  const layout = (dovecotDir: string) => ({ root: '/', dovecotDir }) as HostLayout;

  it('finds Pigeonhole installed, ManageSieve greeting and the Junk script compiling', async () => {
    const outcomes = await runChecks(sieveChecks(layout(path.join(world.mail.dir, 'dovecot'))));
    expect(outcomes.map((o) => [o.name, o.ok, o.detail])).toEqual([
      ['Sieve (Pigeonhole)', true, 'the Sieve, IMAPSieve and ManageSieve parts of Dovecot are installed'],
      ['ManageSieve answers', true, `ManageSieve greets on 127.0.0.1:${world.mail.ports.managesieve}`],
      ['Junk filing script', true, 'atrium-junk.sieve compiles'],
    ]);
  });

  it('names a missing package and a script that does not compile', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-sieve-doctor-'));
    try {
      copyFileSync(path.join(world.mail.dir, 'dovecot', 'dovecot.conf'), path.join(dir, 'dovecot.conf'));
      writeFileSync(
        path.join(dir, 'atrium-junk.sieve'),
        'if header :is "X-Spam" "Yes" { fileinto "Junk"; }\n',
      );
      const [packages, , script] = await runChecks(
        sieveChecks(layout(dir), [...PIGEONHOLE_FILES, '/usr/lib/dovecot/managesieve-missing']),
      );
      expect(packages).toMatchObject({
        ok: false,
        fix: 'apt-get install dovecot-sieve dovecot-managesieved',
      });
      expect(script!.ok).toBe(false);
      // fileinto without `require ["fileinto"]`: sievec's own words.
      expect(script!.detail).toMatch(/^atrium-junk\.sieve does not compile: .*fileinto/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
