import type { Db } from '../../../db/database.ts';
import type { AddressFailureBudget } from '../../auth/sign-in/address-failures.ts';
import { clearFailures, recordFailure, throttleError, throttleState } from '../../auth/sign-in/throttle.ts';
import type { AppPasswordMatch } from './app-passwords.repository.ts';
import { findCorrectAppPassword, verifyOlderAppPassword } from './app-passwords.service.ts';

export interface AppPasswordAttempt {
  /** Whose throttle the failures count in: `dav:<address>`, `mail:<address>`. */
  protocol: 'dav' | 'mail';
  email: string;
  password: string;
  /** The device's own address (behind Caddy or Dovecot, the one they pass on). */
  ip: string;
}

/**
 * A device signing in with an app password (calendars, contacts, IMAP and SMTP), in this order:
 * 1. The right password, found by its digest, is let in before any throttle: devices have no
 *    device cookie, so nothing else tells the owner's phone from a guesser, and guesses from
 *    other addresses, or from the same office's address, must never keep it out (issue 38).
 * 2. Anything else spends a unit of its address's failure budget (20 wrong a minute, however many
 *    accounts they name) and meets the sign-in throttle of `<protocol>:<address>` as before
 *    (throttle.ts): only then is it checked with argon2 (app passwords older than digests).
 * A guess is 20 random base-32 characters to find (100 bits), found only by the digest or by
 * argon2 under the old limits; the throttle still answers 429 to a guesser past its limits.
 */
export async function signInWithAppPassword(
  db: Db,
  budget: AddressFailureBudget,
  attempt: AppPasswordAttempt,
): Promise<AppPasswordMatch | null> {
  const email = attempt.email.trim().toLowerCase();
  const correct = await findCorrectAppPassword(db, email, attempt.password);
  if (correct) return correct;
  const hold = budget.hold(attempt.ip);
  try {
    const identifier = `${attempt.protocol}:${email}`;
    const throttle = await throttleState(db, identifier, attempt.ip);
    if (throttle.blocked) throw throttleError(throttle.blocked);
    const older = await verifyOlderAppPassword(db, email, attempt.password);
    if (!older) {
      await recordFailure(db, identifier, attempt.ip);
      hold.fail();
      return null;
    }
    if (throttle.failures > 0) {
      // Ends this address's run of failures only: guesses from elsewhere stay counted.
      await clearFailures(db, { identifier, ip: attempt.ip, knownDevice: false });
    }
    return older;
  } finally {
    // Refused by the throttle, right, or failed on the way: the unit goes back (a no-op after fail).
    hold.release();
  }
}
