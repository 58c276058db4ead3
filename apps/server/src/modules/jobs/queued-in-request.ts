import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JobWorker } from './job-worker.ts';
import type { Job } from './jobs.repository.ts';

/**
 * Jobs a request queued and left to the worker (logout tokens, e-mails…): once it has answered,
 * and so committed, the worker looks at once instead of at its next poll. Only then: waking after
 * every write request cost a claim statement each (issue 18).
 */
interface Tally {
  jobs: number;
  /** Jobs it inserted claimed (`insertClaimedJob`), to run once it has answered. */
  claimed: Job[];
}

const scope = new AsyncLocalStorage<Tally>();

/** Jobs were queued (jobs.repository.ts); outside a request nothing is counted. */
export function noteQueued(count: number): void {
  const tally = scope.getStore();
  if (tally) tally.jobs += count;
}

/** A job this request inserted claimed, to run once it has answered; false outside a request. */
export function runWhenAnswered(job: Job): boolean {
  const tally = scope.getStore();
  tally?.claimed.push(job);
  return !!tally;
}

/** The request runs one of its jobs itself (`JobWorker.runNow`): the worker need not look for it. */
export function noteRunHere(): void {
  const tally = scope.getStore();
  if (tally && tally.jobs > 0) tally.jobs -= 1;
}

/**
 * Counts each request's queued jobs, and wakes the worker after a request that left some; runs
 * the jobs it inserted claimed.
 */
export function wakeWorkerAfterQueueing(app: FastifyInstance, jobs: JobWorker): void {
  const tallies = new WeakMap<FastifyRequest, Tally>();
  app.addHook('onRequest', (request, _reply, done) => {
    const tally: Tally = { jobs: 0, claimed: [] };
    tallies.set(request, tally);
    scope.run(tally, done);
  });
  app.addHook('onResponse', async (request) => {
    const tally = tallies.get(request);
    for (const job of tally?.claimed ?? []) jobs.startClaimed(job);
    if ((tally?.jobs ?? 0) > 0) jobs.wake();
  });
}
