import { sql, type RawBuilder } from 'kysely';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import { AppError } from '../../../lib/errors.ts';

/**
 * Password- and code-guessing defences (docs/sign-in.md): a wrong password and a wrong e-mailed
 * code are both failures, counted per identifier *and* client address so an attacker elsewhere
 * cannot lock the owner out (ASVS 6.1.1):
 * - after 5 failures in an hour, each further try waits 2^(n-5) s, at most 30 s;
 * - 100 failures in an hour from one address lock the identifier for that address for an hour;
 * - across all addresses, after 100 failures in an hour every try waits 30 s, so no identifier
 *   gets more than 100 consecutive failures without a pause (NIST SP 800-63B 5.2.2).
 * Unknown identifiers are counted the same way, so throttling reveals nothing.
 *
 * Known devices (issue 30): a request carrying the device cookie of a browser this account has
 * signed in with before (known-devices.ts) is judged by the failures made from the account's known
 * devices only, with the same rules; every other request by all failures, as before. Guesses from
 * elsewhere, however many addresses they come from, then never hold up the owner's own browsers,
 * while a guesser without such a cookie meets exactly the old limits (its failures still count
 * for everyone without one). A completed sign-in ends only the run it was judged by (`clearedBy`).
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
  /** The request's device cookie names a browser this identifier's account has signed in with. */
  knownDevice: boolean;
}

/**
 * The statement reading `FailureCounts`, also a subquery of the password and code steps'
 * (sign-in.repository.ts). `deviceHash`: the sha256 of the request's device cookie, if it has one.
 */
export const failureCounts = (
  identifier: string | RawBuilder<unknown>,
  ip: string,
  deviceHash: string | null = null,
) => sql<FailureCounts>`
  select count(f.id) filter (where f.ip = ${ip})::int as "ipCount",
    max(f.failed_at) filter (where f.ip = ${ip}) as "ipLast",
    count(f.id)::int as "allCount", max(f.failed_at) as "allLast", now() as now, k.known as "knownDevice"
  from (
    select ${deviceHash}::text is not null and exists (
      select 1 from known_devices d join users u on u.id = d.user_id
      where u.email = ${identifier} and d.device_hash = ${deviceHash}) as known
  ) k
  left join sign_in_failures f on f.identifier = ${identifier} and f.failed_at > now() - interval '1 hour'
    and (f.known_device or not k.known)
  group by k.known`;

/** Whether this identifier may try a password or code now from this address; `failures` in the last hour. */
export async function throttleState(
  db: Db,
  identifier: string,
  ip: string,
  deviceHash: string | null = null,
): Promise<{ blocked: ThrottleState | null; failures: number; knownDevice: boolean }> {
  const { rows } = await failureCounts(identifier, ip, deviceHash).execute(db);
  return { ...throttleOf(rows[0]!), knownDevice: rows[0]!.knownDevice };
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

/** A failed password or code; `knownDevice` as the request's `FailureCounts` said. */
export async function recordFailure(
  db: DbOrTrx,
  identifier: string,
  ip: string,
  knownDevice = false,
): Promise<void> {
  await db.insertInto('sign_in_failures').values({ identifier, ip, known_device: knownDevice }).execute();
}

/**
 * The failures a success ends the run of (SQL over `sign_in_failures`): from a known device, the
 * known devices' failures; otherwise those of its own address, not made from a known device. A
 * guesser's failures from other addresses stay, so the owner signing in meanwhile does not give
 * the guesser a fresh start.
 */
export const clearedBy = (success: { identifier: string; ip: string; knownDevice: boolean }) =>
  success.knownDevice
    ? sql<boolean>`(identifier = ${success.identifier} and known_device)`
    : sql<boolean>`(identifier = ${success.identifier} and ip = ${success.ip} and not known_device)`;

/** A success ends the run of consecutive failures it was judged by; old rows are pruned on the way. */
export async function clearFailures(
  db: DbOrTrx,
  success: { identifier: string; ip: string; knownDevice: boolean },
): Promise<void> {
  await db
    .deleteFrom('sign_in_failures')
    .where(sql<boolean>`${clearedBy(success)} or failed_at < now() - interval '1 day'`)
    .execute();
}
