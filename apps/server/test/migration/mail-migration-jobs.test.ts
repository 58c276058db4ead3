import { describe, expect, it } from 'vitest';
import { failOrphanedRuns } from '../../src/modules/migration/mail-migration.repository.ts';
import { resolveSourceHost } from '../../src/modules/migration/source-host.ts';
import { signInAs } from '../support/fixtures.ts';
import { as } from '../users/helpers.ts';
import { upload } from './helpers.ts';
import {
  admin,
  api,
  atriumMailbox,
  finish,
  old,
  passwordOf,
  put,
  setOnProgress,
  source,
  useMigrationWorld,
  world,
} from './mail-migration-world.ts';

// The jobs around the copy: a refused login, CSV files, cancelling, who may start one and where to.

useMigrationWorld({
  'ann@old.test': 'ann-secret',
  'bob@old.test': 'bob-secret',
  'cy@old.test': 'cy-secret',
  'fay@old.test': 'fay-secret',
});

describe('mail migration jobs', () => {
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
    setOnProgress(async (id) => {
      if (id !== started.body.id || cancelled) return;
      cancelled = await api().post(`/api/migration/mail-migrations/${id}/cancel`);
    });
    try {
      const job = await finish(started.body.id);
      expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
      expect(job.status).toBe('cancelled');
      expect(job.messagesDone).toBeLessThan(31);
    } finally {
      setOnProgress(undefined);
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

  it('fails a run whose worker died on its last attempt, erasing the password (housekeeping)', async () => {
    const user = await world.user();
    const started = await api().post('/api/migration/mail-migrations', {
      email: user.email,
      ...source('ann@old.test', 'ann-secret'),
    });
    const { job_id } = await world.server.db
      .selectFrom('mail_migrations')
      .select('job_id')
      .where('id', '=', started.body.id)
      .executeTakeFirstOrThrow();
    // What the queue's own housekeeping leaves of a job whose worker died on the last attempt.
    await world.server.db.updateTable('jobs').set({ status: 'failed' }).where('id', '=', job_id!).execute();
    expect(await failOrphanedRuns(world.server.db)).toBe(1);
    const job = (await api().get(`/api/migration/mail-migrations/${started.body.id}`)).body;
    expect(job).toMatchObject({ status: 'failed' });
    expect(job.error).toMatch(/stopped unexpectedly/);
    expect(await passwordOf(started.body.id)).toBeNull();
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
