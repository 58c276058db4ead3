import { sql, type RawBuilder } from 'kysely';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import { AppError } from '../../../lib/errors.ts';

/**
 * Password- and code-guessing defences (PRODUCT.md §4.2): a wrong password and a wrong e-mailed
 * code are both failures, counted per identifier *and* client address so an attacker elsewhere
 * cannot lock the owner out (ASVS 6.1.1):
 * - after 5 failures in an hour, each further try waits 2^(n-5) s, at most 30 s;
 * - 100 failures in an hour from one address lock the identifier for that address for an hour;
 * - across all addresses, after 100 failures in an hour every try waits 30 s, so no identifier
 *   gets more than 100 consecutive failures without a pause (NIST SP 800-63B 5.2.2).
 * Unknown identifiers are counted the same way, so throttling reveals nothing.
 */
export const FREE_FAILURES = 5;
export const MAX_DELAY_SECONDS = 30;
export const LOCKOUT_FAILURES = 100;
const HOUR_MS = 60 * 60 * 1000;

export interface ThrottleState {
  kind: 'locked' | 'throttled';
  retryAt: Date;
}

/** This identifier's failures in the last hour, from this address and from all: one row. */
export interface FailureCounts {
  ipCount: number;
  ipLast: Date | null;
  allCount: number;
  allLast: Date | null;
  now: Date;
}

/** The statement reading `FailureCounts`, also a subquery of the password step's (sign-in.repository.ts). */
export const failureCounts = (identifier: string | RawBuilder<unknown>, ip: string) => sql<FailureCounts>`
  select count(*) filter (where ip = ${ip})::int as "ipCount",
    max(failed_at) filter (where ip = ${ip}) as "ipLast",
    count(*)::int as "allCount", max(failed_at) as "allLast", now() as now
  from sign_in_failures
  where identifier = ${identifier} and failed_at > now() - interval '1 hour'`;

/** Whether this identifier may try a password or code now from this address; `failures` in the last hour. */
export async function throttleState(
  db: Db,
  identifier: string,
  ip: string,
): Promise<{ blocked: ThrottleState | null; failures: number }> {
  const { rows } = await failureCounts(identifier, ip).execute(db);
  return throttleOf(rows[0]!);
}

/** What the counts allow now: blocked (locked or throttled, until when) or not. */
export function throttleOf(row: FailureCounts): { blocked: ThrottleState | null; failures: number } {
  const now = new Date(row.now).getTime();
  const ipLast = row.ipLast ? new Date(row.ipLast).getTime() : 0;
  if (row.ipCount >= LOCKOUT_FAILURES) {
    return { blocked: { kind: 'locked', retryAt: new Date(ipLast + HOUR_MS) }, failures: row.allCount };
  }
  let retryAt = 0;
  if (row.ipCount >= FREE_FAILURES) {
    retryAt = ipLast + Math.min(2 ** (row.ipCount - FREE_FAILURES), MAX_DELAY_SECONDS) * 1000;
  }
  if (row.allCount >= LOCKOUT_FAILURES && row.allLast) {
    retryAt = Math.max(retryAt, new Date(row.allLast).getTime() + MAX_DELAY_SECONDS * 1000);
  }
  return {
    blocked: retryAt > now ? { kind: 'throttled', retryAt: new Date(retryAt) } : null,
    failures: row.allCount,
  };
}

/** The error a locked or throttled caller sees: what happened and when to try again. */
export function throttleError(state: ThrottleState): AppError {
  const seconds = Math.max(1, Math.ceil((state.retryAt.getTime() - Date.now()) / 1000));
  const at = state.retryAt.toISOString().slice(11, 16);
  const message =
    state.kind === 'locked'
      ? `Too many failed sign-in attempts from your network. Sign-in to this account is locked until ${at} UTC (in ${Math.ceil(seconds / 60)} minutes).`
      : `Too many failed sign-in attempts. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
  return new AppError(
    429,
    state.kind === 'locked' ? 'sign_in_locked' : 'sign_in_throttled',
    message,
    undefined,
    {
      'retry-after': String(seconds),
    },
  );
}

export async function recordFailure(db: DbOrTrx, identifier: string, ip: string): Promise<void> {
  await db.insertInto('sign_in_failures').values({ identifier, ip }).execute();
}

/** A finished sign-in (password and code) ends the run of consecutive failures; old rows are pruned on the way. */
export async function clearFailures(db: DbOrTrx, identifier: string): Promise<void> {
  await db
    .deleteFrom('sign_in_failures')
    .where((eb) =>
      eb.or([eb('identifier', '=', identifier), eb('failed_at', '<', sql<Date>`now() - interval '1 day'`)]),
    )
    .execute();
}
