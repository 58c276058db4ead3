import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { DbOrTrx, JobsTable } from '../../db/database.ts';
import { noteQueued } from './queued-in-request.ts';

export type Job = Selectable<JobsTable>;

export interface NewJob {
  kind: string;
  /** Any JSON; seal secrets before they get here (the mail queue does). */
  payload: unknown;
  /** Tries in all, the first included (default 5). */
  maxAttempts?: number;
  /** Not before this time (default now). */
  runAt?: Date;
  organizationId?: string | null;
}

/**
 * Queues a job. Pass the caller's transaction to queue it with the rows it belongs to: the job
 * exists exactly when they commit. Wake the worker after the commit (JobWorker.wake).
 */
export async function enqueue(db: DbOrTrx, job: NewJob): Promise<string> {
  const row = await db
    .insertInto('jobs')
    .values({
      kind: job.kind,
      payload: JSON.stringify(job.payload ?? {}),
      max_attempts: job.maxAttempts ?? 5,
      run_at: job.runAt ?? sql<Date>`now()`,
      organization_id: job.organizationId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  noteQueued(1);
  return row.id;
}

/** Queues several jobs in one statement (a batch of invitation e-mails, say). */
export async function enqueueMany(db: DbOrTrx, jobs: NewJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await db
    .insertInto('jobs')
    .values(
      jobs.map((job) => ({
        kind: job.kind,
        payload: JSON.stringify(job.payload ?? {}),
        max_attempts: job.maxAttempts ?? 5,
        run_at: job.runAt ?? sql<Date>`now()`,
        organization_id: job.organizationId ?? null,
      })),
    )
    .execute();
  noteQueued(jobs.length);
}

/** The claim a process gives a job it inserts and runs itself (JobWorker.claimHere). */
export interface ClaimHere {
  by: string;
  lockSeconds: number;
}

/**
 * The insert of a job claimed by the process that inserts it, for a request that runs the job
 * itself right after its commit (JobWorker.runClaimed) with no claim statement between: running,
 * first attempt, locked as `claimJobs` locks. If that process dies first, the lock lapses and any
 * worker takes the job over. A fragment for a larger statement (a code and its e-mail, say):
 * `when` decides in SQL whether the job is inserted; `returning *` gives the row, which the
 * enclosing statement returns through `to_jsonb` (read it with `jobFromJson`).
 */
export const insertClaimedJob = (job: NewJob, claim: ClaimHere, when: RawBuilder<unknown> = sql`true`) => sql`
  insert into jobs (kind, payload, max_attempts, run_at, organization_id, status, attempts, locked_by, locked_until)
  select ${job.kind}, ${JSON.stringify(job.payload ?? {})}::jsonb, ${job.maxAttempts ?? 5}, now(),
    ${job.organizationId ?? null}::uuid, 'running', 1, ${claim.by}::uuid,
    now() + make_interval(secs => ${claim.lockSeconds})
  where ${when}
  returning *`;

/** A job row read through `to_jsonb`: its timestamps come back as text. */
export function jobFromJson(row: Job): Job {
  const at = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    ...row,
    run_at: at(row.run_at)!,
    locked_until: at(row.locked_until),
    created_at: at(row.created_at)!,
    updated_at: at(row.updated_at)!,
  };
}

/**
 * Claims up to `limit` due jobs of the given kinds: queued ones whose time has come, and running
 * ones whose lock lapsed (their worker died). SKIP LOCKED lets several workers, in several
 * processes, claim side by side without ever taking the same row. Each claim counts an attempt
 * and gets a fresh `locked_by`, which finishing the job must present.
 */
export async function claimJobs(
  db: DbOrTrx,
  options: {
    kinds: string[];
    limit: number;
    /** Seconds the claim holds: one figure, or each kind's own (KindOptions.lockSeconds). */
    lockSeconds: number | Record<string, number>;
    id?: string;
  },
): Promise<Job[]> {
  if (options.kinds.length === 0 || options.limit <= 0) return [];
  const claim = randomUUID();
  const seconds =
    typeof options.lockSeconds === 'number'
      ? sql`${options.lockSeconds}::double precision`
      : sql`(case kind ${sql.join(
          Object.entries(options.lockSeconds).map(
            ([kind, s]) => sql`when ${kind} then ${s}::double precision`,
          ),
          sql` `,
        )} else 60::double precision end)`;
  const result = await sql<Job>`
    update jobs set
      status = 'running',
      attempts = attempts + 1,
      locked_by = ${claim},
      locked_until = now() + make_interval(secs => ${seconds}),
      updated_at = now()
    where id in (
      select id from jobs
      where kind in (${sql.join(options.kinds)})
        and attempts < max_attempts
        and ((status = 'queued' and run_at <= now()) or (status = 'running' and locked_until < now()))
        ${options.id ? sql`and id = ${options.id}` : sql``}
      order by run_at
      limit ${options.limit}
      for update skip locked
    )
    returning *`.execute(db);
  return result.rows;
}

/** Keeps a long job's lock while its worker is alive. False once the job is no longer ours. */
export async function extendLock(db: DbOrTrx, job: Job, lockSeconds: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ locked_until: sql`now() + make_interval(secs => ${lockSeconds})`, updated_at: sql`now()` })
    .where('id', '=', job.id)
    .where('locked_by', '=', job.locked_by)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Progress for the console to poll (imports, migrations); any JSON. */
export async function setProgress(db: DbOrTrx, job: Job, progress: unknown): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ progress: JSON.stringify(progress), updated_at: sql`now()` })
    .where('id', '=', job.id)
    .where('locked_by', '=', job.locked_by)
    .execute();
}

/**
 * Marks a claimed job done; `erasePayload` drops what it carried (sealed mail, say). A job
 * cancelled while it ran is done too: it did happen.
 */
export async function completeJob(db: DbOrTrx, job: Job, options: { erasePayload: boolean }): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      status: 'done',
      locked_until: null,
      last_error: null,
      updated_at: sql`now()`,
      ...(options.erasePayload ? { payload: '{}' } : {}),
    })
    .where('id', '=', job.id)
    .where('locked_by', '=', job.locked_by)
    .where('status', 'in', ['running', 'cancelled'])
    .execute();
}

/**
 * A failed attempt: queued again after `retryAfterMs`, or `failed` for good when it was the last
 * one. A job cancelled while it ran stays cancelled.
 */
export async function failJob(
  db: DbOrTrx,
  job: Job,
  error: string,
  retryAfterMs: number,
): Promise<'queued' | 'failed'> {
  const final = job.attempts >= job.max_attempts;
  await db
    .updateTable('jobs')
    .set({
      status: final ? 'failed' : 'queued',
      locked_until: null,
      last_error: error.slice(0, 2000),
      run_at: sql`now() + make_interval(secs => ${retryAfterMs / 1000})`,
      updated_at: sql`now()`,
    })
    .where('id', '=', job.id)
    .where('locked_by', '=', job.locked_by)
    .where('status', '=', 'running')
    .execute();
  return final ? 'failed' : 'queued';
}

/**
 * A claimed job that cannot run yet (it waits for another): queued again after `delayMs`, and
 * the claim's attempt is given back, so waiting never uses up its tries.
 */
export async function deferJob(db: DbOrTrx, job: Job, reason: string, delayMs: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      status: 'queued',
      attempts: sql`attempts - 1`,
      locked_until: null,
      last_error: reason.slice(0, 2000),
      run_at: sql`now() + make_interval(secs => ${delayMs / 1000})`,
      updated_at: sql`now()`,
    })
    .where('id', '=', job.id)
    .where('locked_by', '=', job.locked_by)
    .where('status', '=', 'running')
    .execute();
}

/**
 * Cancels jobs that are not finished. A running handler is not interrupted: if it succeeds the
 * job is done, if it fails it is not retried.
 */
export async function cancelJobs(db: DbOrTrx, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('jobs')
    .set({ status: 'cancelled', updated_at: sql`now()` })
    .where('id', 'in', ids)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

export async function findJob(db: DbOrTrx, id: string): Promise<Job | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Housekeeping: a job whose worker died on its last attempt ends `failed`; done jobs go after a
 * day (the hourly code count reads them), failed and cancelled ones after 7 days.
 */
export async function purgeJobs(db: DbOrTrx): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      status: 'failed',
      last_error: 'The worker stopped during the last attempt',
      locked_until: null,
      updated_at: sql`now()`,
    })
    .where('status', '=', 'running')
    .where('locked_until', '<', sql<Date>`now()`)
    .whereRef('attempts', '>=', 'max_attempts')
    .execute();
  await db
    .deleteFrom('jobs')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'done'), eb('updated_at', '<', sql<Date>`now() - interval '1 day'`)]),
        eb.and([
          eb('status', 'in', ['failed', 'cancelled']),
          eb('updated_at', '<', sql<Date>`now() - interval '7 days'`),
        ]),
      ]),
    )
    .execute();
}

/**
 * Queues a job of `kind` unless one is already waiting: for work that redoes everything each
 * time (rewriting a whole table, say), one queued run covers any number of requests, and the
 * queue holds at most one such row even when no process runs that kind.
 */
export async function enqueueUnlessQueued(db: DbOrTrx, kind: string, maxAttempts = 10): Promise<void> {
  const inserted = await sql<{ id: string }>`
    insert into jobs (kind, max_attempts)
    select ${kind}, ${maxAttempts}
    where not exists (select 1 from jobs where kind = ${kind} and status = 'queued')
    returning id
  `.execute(db);
  // Counted like any other enqueue, so the request's answer wakes the worker: uncounted, a Mail
  // app's Roundcube file or a domain's DKIM row waited for the next poll, up to 5 s (issue 39).
  noteQueued(inserted.rows.length);
}

/**
 * Queues a job unless one of the same kind for the same `key` (a field of its payload: the user,
 * the organisation…) is queued or running: for idempotent work on one thing, never queued twice
 * and so never run twice at once. True when this call queued it.
 */
export async function enqueueUnlessPending(
  db: DbOrTrx,
  job: NewJob & { payload: Record<string, string> },
  key: string,
): Promise<boolean> {
  const value = job.payload[key];
  if (value === undefined) throw new Error(`The job's payload has no ${key}`);
  const inserted = await sql<{ id: string }>`
    insert into jobs (kind, payload, max_attempts, run_at, organization_id)
    select ${job.kind}, ${JSON.stringify(job.payload)}::jsonb, ${job.maxAttempts ?? 5}::integer,
      ${job.runAt ?? sql`now()`}::timestamptz, ${job.organizationId ?? null}::uuid
    where not exists (
      select 1 from jobs
      where kind = ${job.kind} and status in ('queued', 'running') and payload ->> ${key} = ${value}
    )
    returning id
  `.execute(db);
  noteQueued(inserted.rows.length);
  return inserted.rows.length > 0;
}
