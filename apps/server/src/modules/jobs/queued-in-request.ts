import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JobWorker } from './job-worker.ts';

/**
 * Jobs a request queued and left to the worker (logout tokens, e-mails…): once it has answered,
 * and so committed, the worker looks at once instead of at its next poll. Only then: waking after
 * every write request cost a claim statement each (issue 18).
 */
interface Tally {
  jobs: number;
}

const scope = new AsyncLocalStorage<Tally>();

/** Jobs were queued (jobs.repository.ts); outside a request nothing is counted. */
export function noteQueued(count: number): void {
  const tally = scope.getStore();
  if (tally) tally.jobs += count;
}

/** The request runs one of its jobs itself (`JobWorker.runNow`): the worker need not look for it. */
export function noteRunHere(): void {
  const tally = scope.getStore();
  if (tally && tally.jobs > 0) tally.jobs -= 1;
}

/** Counts each request's queued jobs, and wakes the worker after a request that left some. */
export function wakeWorkerAfterQueueing(app: FastifyInstance, jobs: JobWorker): void {
  const tallies = new WeakMap<FastifyRequest, Tally>();
  app.addHook('onRequest', (request, _reply, done) => {
    const tally = { jobs: 0 };
    tallies.set(request, tally);
    scope.run(tally, done);
  });
  app.addHook('onResponse', async (request) => {
    if ((tallies.get(request)?.jobs ?? 0) > 0) jobs.wake();
  });
}
