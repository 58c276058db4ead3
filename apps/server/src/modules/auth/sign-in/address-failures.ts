import { tooManyRequests } from '../../../lib/errors.ts';

/**
 * Wrong sign-in steps (passwords and e-mailed codes) one client address may make in a minute,
 * whichever accounts they name. The sign-in steps' request limit was 20 a minute an address, right
 * or wrong, which refused the 21st person signing in behind an office's one address (issue 30);
 * the requests limit is now 120 a minute (interactions.routes.ts), and this budget keeps a guesser
 * spraying passwords over many accounts from one address to the 20 wrong tries a minute the old
 * limit allowed. Right steps cost nothing.
 */
export const ADDRESS_FAILURES_PER_MINUTE = 20;
const WINDOW_MS = 60_000;

/** A step's claim on its address's budget: `fail` keeps it spent for a minute, `release` gives it back. */
export interface Hold {
  fail(): void;
  release(): void;
}

/**
 * Kept in memory per process, as @fastify/rate-limit keeps the request limits. A step holds one
 * unit *before* its password or code is checked (synchronously, so concurrent requests cannot all
 * slip under the limit while the first are still being checked) and gives it back when it was right.
 */
export class AddressFailureBudget {
  private readonly addresses = new Map<string, { failedAt: number[]; pending: number }>();

  /** Holds one unit for a step from `ip`, or throws 429 with the time to wait. */
  hold(ip: string, now = Date.now()): Hold {
    const entry = this.entryOf(ip, now);
    if (entry.failedAt.length + entry.pending >= ADDRESS_FAILURES_PER_MINUTE) {
      const oldest = entry.failedAt[0];
      const wait = oldest === undefined ? 1 : (oldest + WINDOW_MS - now) / 1000;
      const seconds = Math.max(1, Math.ceil(wait));
      throw tooManyRequests(
        `Too many requests. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
        wait,
      );
    }
    entry.pending++;
    let done = false;
    const settle = (failed: boolean) => {
      if (done) return;
      done = true;
      entry.pending--;
      if (failed) entry.failedAt.push(Date.now());
      // A map entry lives as long as something in it does.
      else if (!entry.pending && !entry.failedAt.length) this.addresses.delete(ip);
    };
    return { fail: () => settle(true), release: () => settle(false) };
  }

  private entryOf(ip: string, now: number) {
    if (this.addresses.size > 10_000) this.sweep(now);
    let entry = this.addresses.get(ip);
    if (!entry) {
      entry = { failedAt: [], pending: 0 };
      this.addresses.set(ip, entry);
    }
    while (entry.failedAt.length && entry.failedAt[0]! <= now - WINDOW_MS) entry.failedAt.shift();
    return entry;
  }

  private sweep(now: number) {
    for (const [ip, entry] of this.addresses) {
      entry.failedAt = entry.failedAt.filter((at) => at > now - WINDOW_MS);
      if (!entry.pending && !entry.failedAt.length) this.addresses.delete(ip);
    }
  }
}
