import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMailWorld, imapSignIn, sendMail } from '../mail/mail-world.ts';
import { createAppPassword } from '../support/app-passwords.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { useStarted } from '../support/use-started.ts';
import { addDomain, as } from '../users/helpers.ts';
import { downloadAndExtract, finishTakeout } from './helpers.ts';

// Takeout with mail: Atrium reads each mailbox through the real Dovecot as its master user
// (mail-world) and writes it as a Maildir; another organisation's mail never gets in.

const world = useStarted(() => createMailWorld());

/** Puts a message straight into a folder over IMAP (the user's own app password), with flags. */
async function put(user: TestUser, folder: string, subject: string, flags: string[]) {
  const { password } = await createAppPassword(
    world.server,
    user,
    `Putter ${randomBytes(3).toString('hex')}`,
  );
  const imap = await imapSignIn(world, { user: user.email, pass: password });
  try {
    await imap.mailboxCreate(folder).catch(() => undefined);
    const message = `From: someone@elsewhere.test\r\nTo: ${user.email}\r\nSubject: ${subject}\r\n\r\nText of ${subject}.\r\n`;
    await imap.append(folder, Buffer.from(message), flags, new Date('2026-03-02T10:00:00Z'));
  } finally {
    await imap.logout();
  }
}

const subjectOf = (file: Buffer) => /^Subject: (.*)\r?$/m.exec(file.toString('utf8'))?.[1]?.trim();

describe('takeout of mailboxes', () => {
  it('holds every message of the organisation’s mailboxes, as Maildirs, and none of another organisation', async () => {
    const ann = await world.user();
    const bob = await world.user();
    const quiet = await world.user();
    await sendMail(world, {
      from: 'x@sender.example.net',
      to: ann.email,
      subject: 'Ann delivered',
      text: 'Hi',
    });
    await sendMail(world, {
      from: 'x@sender.example.net',
      to: bob.email,
      subject: 'Bob delivered',
      text: 'Hi',
    });
    await put(ann, 'INBOX', 'Ann read', ['\\Seen']);
    await put(ann, 'Projects', 'Ann project', ['\\Seen', '\\Flagged']);
    await put(bob, 'Archive', 'Bob archived', []);

    // Another organisation on the same mail server.
    const other = await createOrganizationWithAdmin(world.server.db, {
      subscription: { planKey: 'tiny', seats: 10, status: 'active' },
    });
    const otherDomain = `o${randomBytes(4).toString('hex')}.example.com`;
    await addDomain(world.server.db, other.id, otherDomain);
    const zed = await createUser(world.server.db, other.id, { email: `zed@${otherDomain}` });
    await sendMail(world, {
      from: 'x@sender.example.net',
      to: zed.email,
      subject: 'Zed delivered',
      text: 'Hi',
    });
    await put(zed, 'INBOX', 'Zed secret', ['\\Seen']);
    await world.mail.drainQueue();

    const admin = await signInAs(world.server.db, world.org.admin);
    const started = await as(world.server, admin).post('/api/takeout');
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const row = await finishTakeout(world.server, started.body.id);
    expect(row.status, `${row.error}\n${world.mail.logs()}`).toBe('done');
    expect(row.messages_done).toBe(5);

    const archive = await downloadAndExtract(world.server, admin, started.body.id);
    const byMailbox = new Map<string, string[]>();
    for (const [name, file] of archive.files) {
      const match = /^mailboxes\/([^/]+)\/Maildir\/(.*)cur\/[^/]+$/.exec(name);
      if (!match) continue;
      const list = byMailbox.get(match[1]!) ?? [];
      list.push(`${match[2] || 'INBOX/'}${subjectOf(file)}`);
      byMailbox.set(match[1]!, list);
    }
    expect(byMailbox.get(ann.email)?.sort()).toEqual([
      '.Projects/Ann project',
      'INBOX/Ann delivered',
      'INBOX/Ann read',
    ]);
    expect(byMailbox.get(bob.email)?.sort()).toEqual(['.Archive/Bob archived', 'INBOX/Bob delivered']);
    expect(byMailbox.get(quiet.email)).toBeUndefined();
    expect([...byMailbox.keys()].every((k) => k.endsWith(`@${world.domain}`))).toBe(true);

    // Flags are in the file names, the Maildir way.
    const project = [...archive.files.keys()].find((k) =>
      k.startsWith(`mailboxes/${ann.email}/Maildir/.Projects/cur/`),
    );
    expect(project).toMatch(/:2,FS$/);
    expect(archive.text('README.txt')).not.toContain('Mail is not set up');

    const everything = [...archive.files.values()].map((f) => f.toString('utf8')).join('\n');
    for (const foreign of ['Zed delivered', 'Zed secret', zed.email, otherDomain, other.id]) {
      expect(everything).not.toContain(foreign);
    }
  });
});
