import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import {
  claimJobs,
  completeJob,
  deferJob,
  extendLock,
  failJob,
  findJob,
  purgeJobs,
  setProgress,
  type ClaimHere,
  type Job,
} from './jobs.repository.ts';
import { noteRunHere, runWhenAnswered } from './queued-in-request.ts';

export interface JobContext {
  job: Job;
  db: Db;
  log: FastifyBaseLogger;
  /** Saves progress the console can poll; any JSON. */
  setProgress(progress: unknown): Promise<void>;
}

export type JobHandler = (payload: unknown, context: JobContext) => Promise<void>;

export interface KindOptions {
  /** Wait before retry n is base·2^(n-1), at most `capMs` (defaults 10 s and 15 minutes). */
  backoff?: { baseMs: number; capMs: number };
  /**
   * How long a claim holds before another worker may take the job over (60 s by default): the
   * longest a job of a process that died waits; renewed every quarter of it while the job runs.
   */
  lockSeconds?: number;
  /** Drop the payload once done (it may carry secrets, sealed or not). */
  erasePayloadWhenDone?: boolean;
}

/** Thrown by a handler when retrying cannot help: the job ends `failed` at once. */
export class PermanentJobError extends Error {}

/**
 * Thrown by a handler whose job must wait for another (an organisation's earlier webhook event):
 * it runs again after `delayMs` or when woken, and the attempt does not count.
 */
export class DeferredJob extends Error {
  readonly delayMs: number;
  constructor(message: string, delayMs: number) {
    super(message);
    this.delayMs = delayMs;
  }
}

interface Registered {
  handler: JobHandler;
  backoff: { baseMs: number; capMs: number };
  lockSeconds: number;
  erasePayloadWhenDone: boolean;
}

const HOUSEKEEPING_EVERY_MS = 10 * 60 * 1000;

/** The wait before the next try after `attempts` tries: exponential, capped. */
export function backoffMs(backoff: { baseMs: number; capMs: number }, attempts: number): number {
  return Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, attempts - 1));
}

/**
 * Adding a kind of job (back-channel logout, webhooks…): register its handler on the app's worker
 * (`app.jobs`, built in app.ts) before the app is ready; queue with `enqueue(trx, { kind, payload })`
 * inside the transaction that decides the work; after the commit call `jobs.wake()`, or
 * `jobs.runNow(id, ms)` when the request should wait a moment for the outcome. Handlers may run
 * more than once (a worker can die after the work and before recording it): make them idempotent.
 *
 * Runs the jobs of the `jobs` table: claims due jobs of the registered kinds (several workers,
 * in one process or many, never take the same job), runs their handlers, retries failures with
 * backoff up to the job's max attempts. Polls every `pollMs`; `wake()` after an enqueue runs a
 * job at once. `stop()` waits for the jobs in progress.
 */
export class JobWorker {
  private readonly handlers = new Map<string, Registered>();
  private readonly inFlight = new Map<string, Promise<'done' | 'retry' | 'failed'>>();
  private readonly housekeeping: Array<() => Promise<void>> = [() => purgeJobs(this.db)];
  private readonly pollMs: number;
  private readonly concurrency: number;
  private started = false;
  private ticking: Promise<void> | undefined;
  private again = false;
  /** The last claim filled every free slot (or found none free): more may be due once one frees. */
  private backlog = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private houseTimer: NodeJS.Timeout | undefined;
  private readonly db: Db;
  private readonly log: FastifyBaseLogger;

  constructor(db: Db, log: FastifyBaseLogger, options: { pollMs?: number; concurrency?: number } = {}) {
    this.db = db;
    this.log = log;
    this.pollMs = options.pollMs ?? 5000;
    this.concurrency = options.concurrency ?? 4;
  }

  register(kind: string, handler: JobHandler, options: KindOptions = {}): void {
    if (this.handlers.has(kind)) throw new Error(`A handler for job kind "${kind}" is already registered`);
    this.handlers.set(kind, {
      handler,
      backoff: options.backoff ?? { baseMs: 10_000, capMs: 15 * 60_000 },
      lockSeconds: options.lockSeconds ?? 60,
      erasePayloadWhenDone: options.erasePayloadWhenDone ?? false,
    });
  }

  /** Periodic clean-up beside the queue's own (old outbox messages, say); every 10 minutes. */
  addHousekeeping(task: () => Promise<void>): void {
    this.housekeeping.push(task);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.houseTimer = setInterval(() => void this.runHousekeeping(), HOUSEKEEPING_EVERY_MS);
    this.houseTimer.unref();
    this.wake();
  }

  /** Looks for due jobs now instead of at the next poll (call it after the enqueue commits). */
  wake(): void {
    if (!this.started) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.pollTimer);
    this.ticking = this.tick().finally(() => {
      this.ticking = undefined;
      if (!this.started) return;
      if (this.again) {
        this.again = false;
        this.wake();
      } else {
        this.pollTimer = setTimeout(() => this.wake(), this.pollMs);
        this.pollTimer.unref();
      }
    });
  }

  /** Stops claiming and waits for the jobs in progress to finish. */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.pollTimer);
    clearInterval(this.houseTimer);
    await this.ticking;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * Runs one job now if it is due (a request that just queued a message, say), waiting at most
   * `waitMs`: 'done' when it finished in time; otherwise it stays with the queue (still running,
   * or queued again for a retry) and is 'pending'.
   */
  async runNow(id: string, waitMs: number): Promise<'done' | 'pending'> {
    noteRunHere();
    let running = this.inFlight.get(id);
    if (!running) {
      const [job] = await claimJobs(this.db, {
        kinds: [...this.handlers.keys()],
        limit: 1,
        lockSeconds: this.lockSecondsByKind(),
        id,
      });
      if (job) running = this.execute(job);
      else {
        // This process's own look (a wake or the poll) may have claimed it a moment earlier:
        // it runs here (or is about to, once that look returns), so take its run.
        await this.ticking;
        running = this.inFlight.get(id);
      }
    }
    if (!running) return (await findJob(this.db, id))?.status === 'done' ? 'done' : 'pending';
    return this.waitFor(running, waitMs);
  }

  /** The claim for a job of `kind` that this process inserts already claimed (`insertClaimedJob`). */
  claimHere(kind: string): ClaimHere {
    return { by: randomUUID(), lockSeconds: this.lockSecondsOf(kind) };
  }

  /**
   * Runs a job this process inserted already claimed, once the insert has committed: `runNow`
   * without its claim statement (issue 18).
   */
  runClaimed(job: Job, waitMs: number): Promise<'done' | 'pending'> {
    return this.waitFor(this.inFlight.get(job.id) ?? this.execute(job), waitMs);
  }

  /** Starts a job this process inserted claimed, without waiting for it. */
  startClaimed(job: Job): void {
    if (!this.inFlight.has(job.id)) void this.execute(job);
  }

  /** `startClaimed` once the request that inserted the job has answered (at once outside one). */
  runClaimedAfterAnswer(job: Job): void {
    if (!runWhenAnswered(job)) this.startClaimed(job);
  }

  private async waitFor(running: Promise<'done' | 'retry' | 'failed'>, waitMs: number) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), waitMs);
    });
    const outcome = await Promise.race([running, late]);
    clearTimeout(timer);
    return outcome === 'done' ? 'done' : 'pending';
  }

  /** Claims and runs what is due until nothing is left (tests; the loop does the same). */
  async drain(): Promise<void> {
    for (;;) {
      // A look that a wake started may have claimed jobs in the database and not yet started
      // them here: they would be neither claimable nor in flight (seen on PostgreSQL, where the
      // claim is a round trip). Wait for it first.
      await this.ticking;
      const claimed = await this.claimBatch();
      await Promise.allSettled([...this.inFlight.values()]);
      if (claimed === 0 && this.ticking === undefined && this.inFlight.size === 0) return;
    }
  }

  private async tick(): Promise<void> {
    try {
      // Keep claiming while batches come back full: a backlog drains without waiting for polls.
      // A batch that was not full took everything due (one statement less per wake, issue 18).
      while (this.started && (await this.claimBatch()) > 0 && this.backlog) {
        if (this.inFlight.size >= this.concurrency) return;
      }
    } catch (err) {
      // A database blip: the next poll tries again.
      this.log.warn({ err }, 'could not claim jobs');
    }
  }

  private async claimBatch(): Promise<number> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) this.backlog = true;
    if (free <= 0 || this.handlers.size === 0) return 0;
    const jobs = await claimJobs(this.db, {
      kinds: [...this.handlers.keys()],
      limit: free,
      lockSeconds: this.lockSecondsByKind(),
    });
    this.backlog = jobs.length === free;
    for (const job of jobs) void this.execute(job);
    return jobs.length;
  }

  private lockSecondsOf(kind: string): number {
    return this.handlers.get(kind)?.lockSeconds ?? 60;
  }

  /**
   * Each kind's claim lasts its own lockSeconds. (It was the longest of all kinds for every claim,
   * so a job whose process died, kill -9, waited up to two minutes to be taken over whatever its
   * kind asked: issue 30 item 7.)
   */
  private lockSecondsByKind(): Record<string, number> {
    return Object.fromEntries([...this.handlers].map(([kind, h]) => [kind, h.lockSeconds]));
  }

  private execute(job: Job): Promise<'done' | 'retry' | 'failed'> {
    const run = this.runHandler(job).finally(() => {
      this.inFlight.delete(job.id);
      // A slot is free: look again if the last look left jobs behind. (A job queued since then
      // woke the worker itself, and the poll catches anything else.)
      if (this.backlog) this.wake();
    });
    this.inFlight.set(job.id, run);
    return run;
  }

  private async runHandler(job: Job): Promise<'done' | 'retry' | 'failed'> {
    const registered = this.handlers.get(job.kind)!;
    // Renewed four times a lock: a beat or two late (a busy database) does not lose the claim.
    const heartbeat = setInterval(
      () => void extendLock(this.db, job, registered.lockSeconds).catch(() => undefined),
      (registered.lockSeconds * 1000) / 4,
    );
    heartbeat.unref();
    const log = this.log.child({ job: { id: job.id, kind: job.kind, attempt: job.attempts } });
    try {
      await registered.handler(job.payload, {
        job,
        db: this.db,
        log,
        setProgress: (progress) => setProgress(this.db, job, progress),
      });
      clearInterval(heartbeat);
      await completeJob(this.db, job, { erasePayload: registered.erasePayloadWhenDone });
      return 'done';
    } catch (error) {
      clearInterval(heartbeat);
      if (error instanceof DeferredJob) {
        await deferJob(this.db, job, error.message, error.delayMs).catch((err: unknown) => {
          log.error({ err }, 'could not defer a job');
        });
        return 'retry';
      }
      const message = error instanceof Error ? error.message : String(error);
      const forGood = error instanceof PermanentJobError;
      try {
        const state = await failJob(
          this.db,
          forGood ? { ...job, attempts: job.max_attempts } : job,
          message,
          backoffMs(registered.backoff, job.attempts),
        );
        log.warn({ err: error }, state === 'failed' ? 'job failed for good' : 'job failed; will retry');
        return state === 'failed' ? 'failed' : 'retry';
      } catch (err) {
        // The lock lapses and another worker takes the job over.
        log.error({ err }, 'could not record a failed job');
        return 'retry';
      }
    }
  }

  private async runHousekeeping(): Promise<void> {
    for (const task of this.housekeeping) {
      await task().catch((err: unknown) => this.log.warn({ err }, 'job housekeeping failed'));
    }
  }
}
