import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failOrphanedRuns } from '../../src/modules/migration/mail-migration.repository.ts';
import { resolveSourceHost } from '../../src/modules/migration/source-host.ts';
import { signInAs } from '../support/fixtures.ts';
import { as } from '../users/helpers.ts';
import { upload } from './helpers.ts';
import { ImapTripwire } from './imap-tripwire.ts';
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
    await expect(resolveSourceHost('127.0.0.1', false)).rejects.toThrow(/is a loopback address/);
    await expect(resolveSourceHost('10.1.2.3', false)).rejects.toThrow(/is a private network address/);
    await expect(resolveSourceHost('::ffff:192.168.1.1', false)).rejects.toThrow(
      /carries 192\.168\.1\.1, a private network address/,
    );
    await expect(resolveSourceHost('93.184.216.34', false)).resolves.toBe('93.184.216.34');
  });
});

describe('mail migration: the old provider’s server is never this host or its network', () => {
  let tripwire: ImapTripwire;
  beforeAll(async () => {
    tripwire = await ImapTripwire.start();
  });
  afterAll(async () => {
    await tripwire?.close();
  });

  /** This host's own (non-loopback) IPv4 address: 192.0.2.2 on the test machines. */
  const ownIPv4 = () => {
    const found = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .find((i) => i.family === 'IPv4' && !i.internal)?.address;
    if (!found) throw new Error('This host has no IPv4 address besides loopback');
    return found;
  };
  const hex = (ipv4: string) => {
    const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number];
    return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  };
  const start = (email: string, host: string) =>
    api().post('/api/migration/mail-migrations', {
      email,
      host,
      port: tripwire.port,
      tls: 'none',
      login: 'ann@old.test',
      password: 'ann-secret',
    });

  /** As a production server runs: MIGRATION_PRIVATE_HOSTS off (this file's Atrium has it on). */
  async function withoutPrivateHosts<T>(body: () => Promise<T>): Promise<T> {
    world.server.config.migrationPrivateHosts = false;
    try {
      return await body();
    } finally {
      world.server.config.migrationPrivateHosts = true;
    }
  }

  it('refuses this host’s address, loopback in every spelling and the IPv6 forms carrying them, without connecting', async () => {
    const user = await world.user();
    const own = ownIPv4();
    const ownServer = new RegExp(`carries ${own.replace(/\./g, '\\.')}, an address of this server`);
    const loopback = /carries 127\.0\.0\.1, a loopback address/;
    const refused: Array<[string, RegExp]> = [
      [own, /is an address of this server/],
      [`[::ffff:${own}]`, ownServer],
      [`[::ffff:${hex(own)}]`, ownServer],
      ['[::ffff:0:7f00:1]', loopback],
      ['[::127.0.0.1]', loopback],
      ['[::7f00:1]', loopback],
      ['[64:ff9b::7f00:1]', loopback],
      ['[::1]', /is a loopback address/],
      ['127.1', /is 127\.0\.0\.1, a loopback address/],
      ['0x7f000001', /is 127\.0\.0\.1, a loopback address/],
      ['2130706433', /is 127\.0\.0\.1, a loopback address/],
      ['0177.0.0.1', /is 127\.0\.0\.1, a loopback address/],
      ['10.1.2.3', /is a private network address/],
      ['203.0.113.9', /is a documentation address/],
      ['198.18.0.1', /is a benchmarking address/],
      ['169.254.169.254', /is a link-local address/],
      // A name is judged by every address it resolves to.
      ['localhost', /resolves to (127\.0\.0\.1|::1), a loopback address/],
    ];
    await withoutPrivateHosts(async () => {
      for (const [host, reason] of refused) {
        const res = await start(user.email, host);
        expect(res.status, host).toBe(400);
        const message = res.body.error.fields?.host as string;
        expect(message, host).toMatch(reason);
        expect(message, host).toMatch(/^The old provider’s server .+, which Atrium does not connect to\./);
      }
    });
    expect(tripwire.connections).toEqual([]);
    const started = await world.server.db
      .selectFrom('mail_migrations')
      .select('id')
      .where('target_email', '=', user.email)
      .execute();
    expect(started).toEqual([]);
  });

  it('checks the address again when the job connects, and fails the run without connecting', async () => {
    const own = ownIPv4();
    const queued: Array<{ id: string; host: string }> = [];
    // Accepted while the operator allowed private hosts; refused by the time the job runs (as a
    // name that resolves elsewhere by then would be).
    for (const host of [own, `[::ffff:${hex(own)}]`, 'localhost', '127.1']) {
      const res = await start((await world.user()).email, host);
      expect(res.status, host).toBe(202);
      queued.push({ id: res.body.id, host });
    }
    await withoutPrivateHosts(async () => {
      for (const { id, host } of queued) {
        const job = await finish(id);
        expect(job.status, host).toBe('failed');
        expect(job.error, host).toMatch(/^The old provider’s server .+, which Atrium does not connect to\./);
        expect(await passwordOf(id)).toBeNull();
      }
    });
    expect(tripwire.connections).toEqual([]);

    // With the setting on, the same address does reach the listener: it would have seen a connection.
    const allowed = await start((await world.user()).email, own);
    expect(allowed.status).toBe(202);
    const job = await finish(allowed.body.id);
    expect(job.error).toMatch(/^The old provider refused the login for ann@old\.test/);
    expect(tripwire.connections.length).toBeGreaterThan(0);
    expect(tripwire.connections.flatMap((c) => c.commands)).toContain('AUTHENTICATE PLAIN');
    tripwire.connections.length = 0;
  });
});
