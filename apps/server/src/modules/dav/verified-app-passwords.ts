import { sha256 } from '../../lib/crypto.ts';
import { normalizedAppPassword } from '../mail/app-passwords/app-passwords.service.ts';

/**
 * App passwords verified a moment ago, by a hash of address and password. A CalDAV client sends
 * its credentials with each of the many requests of one sync, and argon2 for each would make a
 * sync slow and the host busy. Only the match is remembered, not the decision: every request
 * still reads that the app password exists and its user is active, so revoking or suspending
 * takes effect at once. Wrong passwords are never remembered.
 */
export class VerifiedAppPasswords {
  private readonly entries = new Map<string, { appPasswordId: string; until: number }>();

  private readonly ttlMs: number;
  private readonly max: number;

  constructor(ttlMs = 5 * 60_000, max = 10_000) {
    this.ttlMs = ttlMs;
    this.max = max;
  }

  static key(email: string, typed: string): string {
    return sha256(`${email.toLowerCase()}\u0000${normalizedAppPassword(typed)}`);
  }

  get(key: string, now = Date.now()): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > now) return entry.appPasswordId;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, appPasswordId: string, now = Date.now()): void {
    // Oldest first in a Map: past the bound, the oldest entry goes.
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { appPasswordId, until: now + this.ttlMs });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
