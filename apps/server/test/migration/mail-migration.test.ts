import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSourceHost } from '../../src/modules/migration/source-host.ts';
import { createMailWorld, imapSignIn, type MailWorld } from '../mail/mail-world.ts';
import { signInAs, type TestSession, type TestUser } from '../support/fixtures.ts';
import { OldImapServer } from '../support/old-imap-server.ts';
import { as } from '../users/helpers.ts';
import { runJobsUntil, upload } from './helpers.ts';

// Mail migration end to end: a second real Dovecot on loopback is the old provider; Atrium copies
// into the mailbox of its own Dovecot (mail-world), which the test reads back over IMAP as the user.

let world: MailWorld;
let old: OldImapServer;
let admin: TestSession;

const OLD_USERS = {
  'ann@old.test': 'ann-secret',
  'bob@old.test': 'bob-secret',
  'cy@old.test': 'cy-secret',
  'dan@old.test': 'dan-secret',
  'eve@old.test': 'eve-secret',
  'fay@old.test': 'fay-secret',
};

/** Runs after each progress write of a migration run (the cancel test stops one there). */
let onProgress: ((migrationId: string) => Promise<void>) | undefined;

beforeAll(async () => {
  world = await createMailWorld({
    env: { MIGRATION_PRIVATE_HOSTS: 'true' },
    deps: { migration: { afterMailProgress: async (id) => onProgress?.(id) } },
  });
  old = await OldImapServer.start(OLD_USERS);
  admin = await signInAs(world.server.db, world.org.admin);
}, 60_000);

afterAll(async () => {
  await old?.close();
  await world?.close();
});

const api = () => as(world.server, admin);

let n = 0;
function message(subject: string) {
  return Buffer.from(
    `From: someone@elsewhere.test\r\nTo: ann@old.test\r\nSubject: ${subject}\r\n` +
      `Message-ID: <${subject.replace(/\W/g, '.')}@old.test>\r\nDate: Mon, 2 Mar 2026 10:00:00 +0000\r\n\r\n` +
      `The text of ${subject}.\r\n`,
  );
}

async function put(client: ImapFlow, folder: string, subject: string, flags: string[], date: string) {
  await client.mailboxCreate(folder).catch(() => undefined);
  await client.append(folder, message(subject), flags, new Date(date));
}

/** Subject → flags and internal date, per folder, of a mailbox read over IMAP. */
async function contents(client: ImapFlow) {
  const result: Record<string, Record<string, { flags: string[]; date: string }>> = {};
  for (const folder of await client.list()) {
    if (folder.flags.has('\\Noselect')) continue;
    const lock = await client.getMailboxLock(folder.path, { readOnly: true });
    try {
      const messages: Record<string, { flags: string[]; date: string }> = {};
      if (client.mailbox && client.mailbox.exists > 0) {
        for await (const m of client.fetch('1:*', { envelope: true, flags: true, internalDate: true })) {
          const subject = m.envelope?.subject ?? '';
          if (messages[subject]) throw new Error(`${subject} is in ${folder.path} twice`);
          messages[subject] = {
            flags: [...(m.flags ?? [])].filter((f) => f !== '\\Recent').sort(),
            date: new Date(m.internalDate!).toISOString(),
          };
        }
      }
      result[folder.path] = messages;
    } finally {
      lock.release();
    }
  }
  return result;
}

async function atriumMailbox(user: TestUser) {
  const created = await world.server.app.inject({
    method: 'POST',
    url: '/api/profile/app-passwords',
    headers: (await signInAs(world.server.db, user)).headers,
    payload: { name: `Test reader ${++n}` },
  });
  const client = await imapSignIn(world, {
    user: user.email,
    pass: (created.json() as { password: string }).password,
  });
  try {
    return await contents(client);
  } finally {
    await client.logout();
  }
}

async function finish(id: string) {
  await runJobsUntil(world.server, async () => {
    const row = await world.server.db
      .selectFrom('mail_migrations')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return !['queued', 'running'].includes(row.status);
  });
  return (await api().get(`/api/migration/mail-migrations/${id}`)).body;
}

const passwordOf = async (id: string) =>
  (
    await world.server.db
      .selectFrom('mail_migrations')
      .select('source_password_enc')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).source_password_enc;

const source = (login: string, password: string) => ({
  host: '127.0.0.1',
  port: old.port,
  tls: 'none',
  login,
  password,
});

describe('migrating mail from the old provider over IMAP', () => {
  it('copies every folder and message once, with flags and dates; a re-run copies only what is new', async () => {
    const ann = await world.user();
    const src = await old.signIn('ann@old.test');
    try {
      await put(src, 'INBOX', 'Read one', ['\\Seen'], '2025-01-05T09:00:00Z');
      await put(src, 'INBOX', 'Flagged and answered', ['\\Flagged', '\\Answered'], '2025-02-06T10:00:00Z');
      await put(src, 'INBOX', 'With a keyword', ['$Important'], '2025-03-07T11:00:00Z');
      await put(src, 'Projects', 'Project plan', ['\\Seen'], '2024-12-01T08:00:00Z');
      await put(src, 'Projects/2026', 'Budget 2026', [], '2025-11-11T12:00:00Z');
      await put(src, 'Sent Items', 'My reply', ['\\Seen'], '2025-04-08T13:00:00Z');
    } finally {
      await src.logout();
    }

    const started = await api().post('/api/migration/mail-migrations', {
      email: ann.email,
      ...source('ann@old.test', 'ann-secret'),
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toMatchObject({ kind: 'mail', status: 'queued', email: ann.email, runs: 1 });
    expect(await passwordOf(started.body.id)).toMatch(/^v1\./);

    const job = await finish(started.body.id);
    expect(job, world.mail.logs()).toMatchObject({
      status: 'done',
      messagesTotal: 6,
      messagesDone: 6,
      folderErrors: 0,
      error: null,
    });
    expect(job.bytesDone).toBe(job.bytesTotal);
    expect(job.bytesTotal).toBeGreaterThan(0);
    expect(await passwordOf(started.body.id)).toBeNull();

    const first = await atriumMailbox(ann);
    expect(first.INBOX).toEqual({
      'Read one': { flags: ['\\Seen'], date: '2025-01-05T09:00:00.000Z' },
      'Flagged and answered': { flags: ['\\Answered', '\\Flagged'], date: '2025-02-06T10:00:00.000Z' },
      'With a keyword': { flags: ['$Important'], date: '2025-03-07T11:00:00.000Z' },
    });
    expect(first.Projects).toEqual({
      'Project plan': { flags: ['\\Seen'], date: '2024-12-01T08:00:00.000Z' },
    });
    expect(first['Projects.2026']).toEqual({
      'Budget 2026': { flags: [], date: '2025-11-11T12:00:00.000Z' },
    });
    // The old provider's "Sent Items" is the user's Sent folder here.
    expect(first.Sent).toEqual({ 'My reply': { flags: ['\\Seen'], date: '2025-04-08T13:00:00.000Z' } });
    expect(first['Sent Items']).toBeUndefined();

    // New mail at the old provider since; the re-run asks for the password again.
    const again = await old.signIn('ann@old.test');
    try {
      await put(again, 'INBOX', 'Arrived later', ['\\Flagged'], '2025-05-01T07:00:00Z');
      await put(again, 'Projects/2026', 'Budget 2026 revised', ['\\Seen'], '2025-05-02T07:00:00Z');
    } finally {
      await again.logout();
    }
    const missing = await api().post(`/api/migration/mail-migrations/${started.body.id}/rerun`, {});
    expect(missing.status).toBe(400);
    const rerun = await api().post(`/api/migration/mail-migrations/${started.body.id}/rerun`, {
      password: 'ann-secret',
    });
    expect(rerun.status, JSON.stringify(rerun.body)).toBe(202);
    const second = await finish(started.body.id);
    expect(second).toMatchObject({ status: 'done', runs: 2, messagesTotal: 2, messagesDone: 2 });
    expect(await passwordOf(started.body.id)).toBeNull();
    const after = await atriumMailbox(ann);
    expect(Object.keys(after.INBOX!).sort()).toEqual([
      'Arrived later',
      'Flagged and answered',
      'Read one',
      'With a keyword',
    ]);
    expect(after.INBOX!['Arrived later']).toEqual({ flags: ['\\Flagged'], date: '2025-05-01T07:00:00.000Z' });
    expect(Object.keys(after['Projects.2026']!).sort()).toEqual(['Budget 2026', 'Budget 2026 revised']);
    expect(after.Sent).toEqual(first.Sent);
    expect(second.folders).toContainEqual({
      source: 'Projects/2026',
      target: 'Projects.2026',
      messagesCopied: 2,
      error: null,
    });

    const listed = (await api().get('/api/migration/jobs')).body.jobs;
    expect(listed.find((j: { id: string }) => j.id === started.body.id)).toMatchObject({
      kind: 'mail',
      status: 'done',
    });
    const activity = await world.server.db
      .selectFrom('activity_log')
      .select('action')
      .where('target_id', '=', started.body.id)
      .execute();
    expect(activity.map((a) => a.action).sort()).toEqual([
      'migration.mail_finished',
      'migration.mail_finished',
      'migration.mail_rerun',
      'migration.mail_started',
    ]);
  });

  it('copies a folder again when its UIDVALIDITY changed, without duplicating what is already there', async () => {
    const dan = await world.user();
    const first = await old.signIn('dan@old.test');
    try {
      await put(first, 'Archive 2024', 'Old one', ['\\Seen'], '2024-01-01T00:00:00Z');
      await put(first, 'Archive 2024', 'Old two', [], '2024-01-02T00:00:00Z');
    } finally {
      await first.logout();
    }
    const started = await api().post('/api/migration/mail-migrations', {
      email: dan.email,
      ...source('dan@old.test', 'dan-secret'),
    });
    expect((await finish(started.body.id)).messagesDone).toBe(2);
    // The old provider rebuilt the folder (a new UIDVALIDITY): the same two messages and a new one.
    const rebuilt = await old.signIn('dan@old.test');
    try {
      const uidValidity = async () =>
        ((await rebuilt.status('Archive 2024', { uidValidity: true })) || {}).uidValidity;
      const before = await uidValidity();
      await rebuilt.mailboxDelete('Archive 2024');
      await put(rebuilt, 'Archive 2024', 'Old one', ['\\Seen'], '2024-01-01T00:00:00Z');
      await put(rebuilt, 'Archive 2024', 'Old two', [], '2024-01-02T00:00:00Z');
      await put(rebuilt, 'Archive 2024', 'New three', [], '2024-01-03T00:00:00Z');
      expect(await uidValidity()).not.toBe(before);
    } finally {
      await rebuilt.logout();
    }
    await api().post(`/api/migration/mail-migrations/${started.body.id}/rerun`, { password: 'dan-secret' });
    expect(await finish(started.body.id)).toMatchObject({
      status: 'done',
      messagesTotal: 3,
      messagesDone: 3,
    });
    const mailbox = await atriumMailbox(dan);
    expect(Object.keys(mailbox['Archive 2024']!).sort()).toEqual(['New three', 'Old one', 'Old two']);
  });

  it('records a folder that cannot be copied (the Atrium mailbox is full) and goes on with the others', async () => {
    const eve = await world.user();
    const client = await old.signIn('eve@old.test');
    try {
      // The test plan's mailboxes hold 1 MiB (mail-world.ts); this message is 1.5 MiB.
      const big = 'x'.repeat(76).concat('\r\n').repeat(20_000);
      await client.mailboxCreate('Big');
      await client.append('Big', Buffer.from(`Subject: Too big\r\nMessage-ID: <big@old.test>\r\n\r\n${big}`));
      await put(client, 'Small', 'Fits', ['\\Seen'], '2025-07-01T00:00:00Z');
    } finally {
      await client.logout();
    }
    const started = await api().post('/api/migration/mail-migrations', {
      email: eve.email,
      ...source('eve@old.test', 'eve-secret'),
    });
    const job = await finish(started.body.id);
    expect(job).toMatchObject({ status: 'done', folderErrors: 1, messagesTotal: 2, error: null });
    const big = job.folders.find((f: { source: string }) => f.source === 'Big');
    expect(big.messagesCopied).toBe(0);
    expect(big.error).toBe('Big: The mailbox is full');
    expect(job.folders.find((f: { source: string }) => f.source === 'Small')).toMatchObject({
      messagesCopied: 1,
      error: null,
    });
    const mailbox = await atriumMailbox(eve);
    expect(Object.keys(mailbox.Small!)).toEqual(['Fits']);
    expect(mailbox.Big).toEqual({});
  });

  it('fails with a clear error when the old provider refuses the password, and keeps no credentials', async () => {
    const user = await world.user();
    const started = await api().post('/api/migration/mail-migrations', {
      email: user.email,
      ...source('bob@old.test', 'not-the-password'),
    });
    expect(started.status).toBe(202);
    const job = await finish(started.body.id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^The old provider refused the login for bob@old\.test at 127\.0\.0\.1\./);
    expect(await passwordOf(started.body.id)).toBeNull();
    expect(await atriumMailbox(user)).toEqual({ INBOX: {} });
  });

  it('starts one job per mailbox from a CSV file, and refuses a file with a bad row', async () => {
    const bob = await world.user();
    const cy = await world.user();
    for (const login of ['bob@old.test', 'cy@old.test']) {
      const client = await old.signIn(login);
      await put(client, 'INBOX', `Hello ${login}`, ['\\Seen'], '2025-06-01T00:00:00Z');
      await client.logout();
    }
    const header = 'Email,Host,Port,TLS,Login,Password\n';
    const bad = await upload(
      world.server,
      admin,
      '/api/migration/mail-migrations/csv',
      `${header}${bob.email},127.0.0.1,${old.port},none,bob@old.test,bob-secret\nnobody@${world.domain},127.0.0.1,${old.port},none,x,y\n`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(
      /Row 3: nobody@.* is not a user of this organisation with a mailbox/,
    );

    const started = await upload(
      world.server,
      admin,
      '/api/migration/mail-migrations/csv',
      `${header}${bob.email},127.0.0.1,${old.port},none,bob@old.test,bob-secret\n${cy.email},127.0.0.1,${old.port},none,cy@old.test,cy-secret\n`,
    );
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.jobs).toHaveLength(2);
    for (const job of started.body.jobs) {
      expect(await finish(job.id)).toMatchObject({ status: 'done', messagesDone: 1 });
    }
    expect(Object.keys((await atriumMailbox(bob)).INBOX!)).toEqual(['Hello bob@old.test']);
    expect(Object.keys((await atriumMailbox(cy)).INBOX!)).toEqual(['Hello cy@old.test']);
  });

  it('cancels a migration that has not run: nothing is copied and the password is erased', async () => {
    const user = await world.user();
    const started = await api().post('/api/migration/mail-migrations', {
      email: user.email,
      ...source('ann@old.test', 'ann-secret'),
    });
    expect(started.status).toBe(202);
    const cancelled = await api().post(`/api/migration/mail-migrations/${started.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(await passwordOf(started.body.id)).toBeNull();
    expect((await finish(started.body.id)).status).toBe('cancelled');
    expect(await atriumMailbox(user)).toEqual({ INBOX: {} });
    const twice = await api().post(`/api/migration/mail-migrations/${started.body.id}/cancel`);
    expect(twice.status).toBe(409);
  });

  it('cancels a running migration: it stops there, keeps what it copied and erases the password', async () => {
    const fay = await world.user();
    const client = await old.signIn('fay@old.test');
    try {
      for (let i = 1; i <= 30; i++) await put(client, 'INBOX', `Message ${i}`, [], '2025-08-01T00:00:00Z');
      await put(client, 'Later', 'Never copied', [], '2025-08-02T00:00:00Z');
    } finally {
      await client.logout();
    }
    const started = await api().post('/api/migration/mail-migrations', {
      email: fay.email,
      ...source('fay@old.test', 'fay-secret'),
    });
    let cancelled: { status: number; body: { status: string } } | undefined;
    onProgress = async (id) => {
      if (id !== started.body.id || cancelled) return;
      cancelled = await api().post(`/api/migration/mail-migrations/${id}/cancel`);
    };
    try {
      const job = await finish(started.body.id);
      expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
      expect(job.status).toBe('cancelled');
      expect(job.messagesDone).toBeLessThan(31);
    } finally {
      onProgress = undefined;
    }
    expect(await passwordOf(started.body.id)).toBeNull();
    const mailbox = await atriumMailbox(fay);
    // INBOX (listed first) was under way; the folder after it was never started.
    expect(Object.keys(mailbox.INBOX!).length).toBeGreaterThan(0);
    expect(mailbox.Later).toBeUndefined();
    const jobRow = await world.server.db
      .selectFrom('jobs')
      .select('status')
      .where(
        'id',
        '=',
        (
          await world.server.db
            .selectFrom('mail_migrations')
            .select('job_id')
            .where('id', '=', started.body.id)
            .executeTakeFirstOrThrow()
        ).job_id!,
      )
      .executeTakeFirstOrThrow();
    expect(jobRow.status).not.toBe('failed');
  });

  it('refuses a target outside the organisation and a source on a private network', async () => {
    const refused = await api().post('/api/migration/mail-migrations', {
      email: 'stranger@elsewhere.test',
      ...source('ann@old.test', 'ann-secret'),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/is not a user of this organisation with a mailbox/);
    const member = await signInAs(world.server.db, await world.user());
    const forbidden = await as(world.server, member).post('/api/migration/mail-migrations', {
      email: world.org.admin.email,
      ...source('ann@old.test', 'ann-secret'),
    });
    expect(forbidden.status).toBe(403);
    // Without MIGRATION_PRIVATE_HOSTS (this app has it on, for the loopback old provider).
    await expect(resolveSourceHost('127.0.0.1', false)).rejects.toThrow(/private network/);
    await expect(resolveSourceHost('10.1.2.3', false)).rejects.toThrow(/private network/);
    await expect(resolveSourceHost('::ffff:192.168.1.1', false)).rejects.toThrow(/private network/);
    await expect(resolveSourceHost('93.184.216.34', false)).resolves.toBe('93.184.216.34');
  });
});
