import Fastify from 'fastify';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { JobWorker, PermanentJobError } from '../../src/modules/jobs/job-worker.ts';
import {
  claimJobs,
  completeJob,
  enqueue,
  findJob,
  insertClaimedJob,
  jobFromJson,
  purgeJobs,
  type Job,
} from '../../src/modules/jobs/jobs.repository.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

const log = Fastify({ logger: { level: 'silent' } }).log;

let database: TestDatabase;
/** A second pool on the same database, as a second server process has (PostgreSQL only). */
let other: Kysely<Database>;

beforeAll(async () => {
  database = await createTestDatabase();
  // Embedded PGlite is one connection in one process: both workers share it there.
  if (database.url) {
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    // Dropping the test database ends this pool's connections too.
    pool.on('error', () => undefined);
    other = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    other = database.db;
  }
});

afterAll(async () => {
  if (other !== database.db) await other.destroy();
  await database.drop();
});

/** Makes a job's backoff elapse, as time passing would. */
const makeDue = (id: string) =>
  database.db
    .updateTable('jobs')
    .set({ run_at: sql`now()` })
    .where('id', '=', id)
    .execute();

/** Makes a claim lapse, as the death of the worker holding it would once its lock runs out. */
const lapseLock = (id: string) =>
  database.db
    .updateTable('jobs')
    .set({ locked_until: sql`now() - interval '1 second'` })
    .where('id', '=', id)
    .execute();

describe('the job queue', () => {
  it('runs each job exactly once with two workers on two connections', async () => {
    const runs: string[] = [];
    const handler = async (payload: unknown) => {
      // Yield between claim and finish so the workers really interleave.
      await new Promise((resolve) => setTimeout(resolve, 5));
      runs.push((payload as { n: string }).n);
    };
    const a = new JobWorker(database.db, log, { concurrency: 3 });
    const b = new JobWorker(other, log, { concurrency: 3 });
    a.register('test.once', handler);
    b.register('test.once', handler);
    const ids: string[] = [];
    for (let n = 0; n < 30; n++)
      ids.push(await enqueue(database.db, { kind: 'test.once', payload: { n: `${n}` } }));

    await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()]);

    expect(runs.toSorted()).toEqual(ids.map((_, n) => `${n}`).toSorted());
    const statuses = await database.db
      .selectFrom('jobs')
      .select(['status', 'attempts'])
      .where('id', 'in', ids)
      .execute();
    expect(statuses.every((s) => s.status === 'done' && s.attempts === 1)).toBe(true);
  });

  it('retries a failing job with exponential backoff and ends it failed after its max attempts', async () => {
    const worker = new JobWorker(database.db, log);
    let tries = 0;
    worker.register(
      'test.flaky',
      async () => {
        tries++;
        throw new Error(`mail server said no (${tries})`);
      },
      { backoff: { baseMs: 30_000, capMs: 90_000 } },
    );
    const id = await enqueue(database.db, { kind: 'test.flaky', payload: {}, maxAttempts: 4 });

    const waits: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      await worker.drain();
      const job = (await findJob(database.db, id))!;
      expect(job).toMatchObject({
        status: 'queued',
        attempts: attempt,
        last_error: `mail server said no (${attempt})`,
      });
      waits.push(job.run_at.getTime() - job.updated_at.getTime());
      // Not due yet: another pass leaves it alone.
      await worker.drain();
      expect(tries).toBe(attempt);
      await makeDue(id);
    }
    // 30 s, 60 s, then capped at 90 s.
    expect(waits).toEqual([30_000, 60_000, 90_000]);

    await worker.drain();
    expect(await findJob(database.db, id)).toMatchObject({ status: 'failed', attempts: 4 });
    await makeDue(id);
    await worker.drain();
    expect(tries).toBe(4);
  });

  it('drain waits for the jobs a wake has just claimed, so they are done when it returns', async () => {
    const worker = new JobWorker(database.db, log);
    const done: string[] = [];
    worker.register('test.woken', async (payload) => {
      await new Promise((r) => setTimeout(r, 50));
      done.push((payload as { n: string }).n);
    });
    worker.start();
    try {
      for (const n of ['one', 'two', 'three']) {
        const id = await enqueue(database.db, { kind: 'test.woken', payload: { n } });
        // As a route does after its commit, and then a test that wants the outcome.
        worker.wake();
        await worker.drain();
        expect(await findJob(database.db, id)).toMatchObject({ status: 'done' });
      }
      expect(done).toEqual(['one', 'two', 'three']);
    } finally {
      await worker.stop();
    }
  });

  it('runNow takes the run of a job its own worker claimed a moment earlier, and reports it done', async () => {
    const worker = new JobWorker(database.db, log);
    worker.register('test.raced', async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
    worker.start();
    try {
      for (let n = 0; n < 3; n++) {
        const id = await enqueue(database.db, { kind: 'test.raced', payload: {} });
        // The poll (or another request's wake) looks just as a request sends its own e-mail.
        worker.wake();
        expect(await worker.runNow(id, 3000)).toBe('done');
      }
    } finally {
      await worker.stop();
    }
  });

  it('gives up at once on a permanent error', async () => {
    const worker = new JobWorker(database.db, log);
    worker.register('test.hopeless', async () => {
      throw new PermanentJobError('cannot be done');
    });
    const id = await enqueue(database.db, { kind: 'test.hopeless', payload: {} });
    await worker.drain();
    expect(await findJob(database.db, id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: 'cannot be done',
    });
  });

  it('takes over the job of a worker that died once its lock lapses, and ignores the dead claim', async () => {
    const id = await enqueue(database.db, { kind: 'test.orphan', payload: {} });
    // A worker claims the job, then its process dies.
    const [dead] = await claimJobs(other, { kinds: ['test.orphan'], limit: 1, lockSeconds: 300 });
    expect(dead?.id).toBe(id);

    let runs = 0;
    const worker = new JobWorker(database.db, log);
    worker.register('test.orphan', async () => {
      runs++;
    });
    await worker.drain();
    expect(runs).toBe(0);

    await lapseLock(id);
    await worker.drain();
    expect(runs).toBe(1);
    expect(await findJob(database.db, id)).toMatchObject({ status: 'done', attempts: 2 });

    // The dead worker's late "done" carries a stale claim and changes nothing.
    await database.db.updateTable('jobs').set({ status: 'running' }).where('id', '=', id).execute();
    await completeJob(database.db, dead!, { erasePayload: false });
    expect(await findJob(database.db, id)).toMatchObject({ status: 'running' });
  });

  it('runs a job its process inserted already claimed, which no other worker takes while the claim holds', async () => {
    const runs: string[] = [];
    const here = new JobWorker(database.db, log);
    const elsewhere = new JobWorker(other, log);
    for (const [name, worker] of [
      ['here', here],
      ['elsewhere', elsewhere],
    ] as const) {
      worker.register('test.claimed', async () => void runs.push(name));
    }
    const insert = (when = sql`true`) =>
      sql<{ job: Job | null }>`
        with j as (${insertClaimedJob({ kind: 'test.claimed', payload: {} }, here.claimHere('test.claimed'), when)})
        select (select to_jsonb(j) from j) as job`.execute(database.db);
    expect((await insert(sql`false`)).rows[0]!.job).toBeNull();

    const job = jobFromJson((await insert()).rows[0]!.job!);
    expect(job).toMatchObject({ status: 'running', attempts: 1 });
    await elsewhere.drain();
    expect(await here.runClaimed(job, 5000)).toBe('done');
    await elsewhere.drain();
    expect(runs).toEqual(['here']);
    expect(await findJob(database.db, job.id)).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('lets any worker take over a job inserted claimed whose process died before running it', async () => {
    let runs = 0;
    const worker = new JobWorker(other, log);
    worker.register('test.claimed-orphan', async () => void runs++);
    const claim = { ...worker.claimHere('test.claimed-orphan'), lockSeconds: 300 };
    const { rows } = await sql<{ id: string }>`
      ${insertClaimedJob({ kind: 'test.claimed-orphan', payload: {} }, claim)}`.execute(database.db);
    const id = rows[0]!.id;
    await worker.drain();
    expect(runs).toBe(0);
    await lapseLock(id);
    await worker.drain();
    expect(runs).toBe(1);
    expect(await findJob(database.db, id)).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('runs a job as soon as it is woken, without waiting for the next poll', async () => {
    const worker = new JobWorker(database.db, log, { pollMs: 60 * 60 * 1000 });
    let ran!: () => void;
    const done = new Promise<void>((resolve) => (ran = resolve));
    worker.register('test.wake', async () => ran());
    worker.start();
    try {
      // Let the first (empty) poll pass; the next one is an hour away.
      await worker.drain();
      await enqueue(database.db, { kind: 'test.wake', payload: {} });
      worker.wake();
      await done;
    } finally {
      await worker.stop();
    }
  });

  it('waits on stop for the jobs in progress to finish', async () => {
    const worker = new JobWorker(database.db, log, { pollMs: 60 * 60 * 1000 });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    worker.register('test.slow', async () => {
      started();
      await gate;
    });
    const id = await enqueue(database.db, { kind: 'test.slow', payload: {} });
    worker.start();
    await running;
    const stopped = worker.stop();
    release();
    await stopped;
    expect(await findJob(database.db, id)).toMatchObject({ status: 'done' });
  });

  it('purges done jobs after a day and failed ones after a week, and fails a dead last attempt', async () => {
    const done = await enqueue(database.db, { kind: 'test.old', payload: {} });
    const failed = await enqueue(database.db, { kind: 'test.old', payload: {} });
    const dying = await enqueue(database.db, { kind: 'test.old', payload: {}, maxAttempts: 1 });
    await database.db
      .updateTable('jobs')
      .set({ status: 'done', updated_at: sql`now() - interval '25 hours'` })
      .where('id', '=', done)
      .execute();
    await database.db
      .updateTable('jobs')
      .set({ status: 'failed', updated_at: sql`now() - interval '25 hours'` })
      .where('id', '=', failed)
      .execute();
    // Its worker died during its only attempt.
    await claimJobs(database.db, { kinds: ['test.old'], limit: 1, lockSeconds: 1, id: dying });
    await database.db
      .updateTable('jobs')
      .set({ locked_until: sql`now() - interval '1 second'` })
      .where('id', '=', dying)
      .execute();

    await purgeJobs(database.db);
    expect(await findJob(database.db, done)).toBeUndefined();
    expect(await findJob(database.db, failed)).toMatchObject({ status: 'failed' });
    expect(await findJob(database.db, dying)).toMatchObject({ status: 'failed', attempts: 1 });
  });
});
