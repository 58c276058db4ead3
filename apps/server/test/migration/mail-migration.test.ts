import { describe, expect, it } from 'vitest';
import {
  api,
  atriumMailbox,
  finish,
  old,
  passwordOf,
  put,
  source,
  useMigrationWorld,
  world,
} from './mail-migration-world.ts';

// Copying: folders, flags, dates, incremental re-runs and folder errors (mail-migration-world.ts).

useMigrationWorld({
  'ann@old.test': 'ann-secret',
  'dan@old.test': 'dan-secret',
  'eve@old.test': 'eve-secret',
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
      await put(src, 'All Mail', 'Read one', ['\\Seen'], '2025-01-05T09:00:00Z');
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
    // A virtual folder (\All) holds copies of messages in other folders: not copied.
    expect(first['All Mail']).toBeUndefined();
    // Empty folders come over too: the old provider's "Deleted Items" is the user's Trash.
    expect(first.Trash).toEqual({});

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
});
