import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { davAccountState, markDavAccountChecked, type DavUser } from './dav.repository.ts';
import { ensureDefaultCollections, type RadicaleAddress } from './radicale-client.ts';

/**
 * The longest a request waits for its account's defaults: well under what clients wait for an
 * answer (iOS and DAVx5 give a minute), so a busy Radicale costs a 503 the client retries, never
 * a hung request.
 */
export const SETUP_BUDGET_MS = 8_000;
/** What a first request that could not set the account up tells the client (Retry-After). */
export const SETUP_RETRY_AFTER_SECONDS = 10;
/** After a failed look at an account that was set up before, the next look is due this much later. */
const RECHECK_RETRY_SECONDS = 60;

export type SetupOutcome = 'ready' | 'unavailable';

/**
 * Makes each user's default calendar and address book on Radicale (docs/dav.md, "Default
 * collections"), for the DAV gate. What was done is in `dav_accounts`, so every process sees it and
 * a missing collection is made again at the next look (every DEFAULTS_RECHECK_SECONDS, or at once
 * after a delete through the gate). Per user and within the request: nothing is queued, and one
 * organisation's set-up never waits for another's. Requests of one user in this process share
 * the look in progress (a phone sends several at once when an account is added).
 */
export class DavAccountSetup {
  private readonly inProgress = new Map<string, Promise<SetupOutcome>>();
  private readonly db: Db;
  private readonly radicale: RadicaleAddress | undefined;
  private readonly log: FastifyBaseLogger;

  constructor(deps: { db: Db; radicale: RadicaleAddress | undefined; log: FastifyBaseLogger }) {
    this.db = deps.db;
    this.radicale = deps.radicale;
    this.log = deps.log;
  }

  /**
   * 'ready' when the request may go on; 'unavailable' when this is the user's first request and
   * Radicale did not make the defaults within SETUP_BUDGET_MS (answer 503, the client tries again).
   */
  async ensure(user: DavUser): Promise<SetupOutcome> {
    const radicale = this.radicale;
    if (!radicale) return 'ready';
    const running = this.inProgress.get(user.userId);
    if (running) return running;
    const state = await davAccountState(this.db, user.userId);
    if (state?.fresh) return 'ready';
    // Another request of the user may have started while the state was read.
    const started = this.inProgress.get(user.userId);
    if (started) return started;
    const look = this.look(radicale, user, state !== undefined).finally(() =>
      this.inProgress.delete(user.userId),
    );
    this.inProgress.set(user.userId, look);
    return look;
  }

  private async look(radicale: RadicaleAddress, user: DavUser, setUpBefore: boolean): Promise<SetupOutcome> {
    const budget = AbortSignal.timeout(SETUP_BUDGET_MS);
    try {
      await ensureDefaultCollections(radicale, user.userId, budget).catch(async (error: unknown) => {
        // Once more within the budget: a busy Radicale now and then drops a connection, and the
        // look is safe to repeat (what exists already is left alone).
        if (budget.aborted) throw error;
        this.log.info({ err: error, user: user.userId }, 'looking at the default collections again');
        await ensureDefaultCollections(radicale, user.userId, budget);
      });
      await markDavAccountChecked(this.db, user);
      return 'ready';
    } catch (error) {
      this.log.warn(
        { err: error, user: user.userId, setUpBefore },
        'could not check the default collections',
      );
      if (!setUpBefore) return 'unavailable';
      // The defaults were there before: let the request through, and look again in a minute.
      await markDavAccountChecked(this.db, user, { retryInSeconds: RECHECK_RETRY_SECONDS }).catch(
        () => undefined,
      );
      return 'ready';
    }
  }
}
