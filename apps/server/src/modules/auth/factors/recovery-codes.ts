import { createHmac } from 'node:crypto';
import type { Config } from '../../../config.ts';
import { deriveKey, randomBase32 } from '../../../lib/crypto.ts';

/**
 * Recovery codes: ten single-use codes for when the authenticator app is not at hand. Each is
 * 10 base-32 characters (50 bits), shown as `xxxxx-xxxxx`; only an HMAC keyed from
 * ATRIUM_SECRET is stored, so the table alone gives nothing to try.
 */
export const RECOVERY_CODE_COUNT = 10;

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = randomBase32(10);
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

/** What a person typed, without spaces, dashes or case, as the HMAC sees it. */
export const normalizeRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

export function hashRecoveryCode(config: Config, userId: string, code: string): string {
  return createHmac('sha256', deriveKey(config.secret, 'recovery-codes'))
    .update(`${userId}:${normalizeRecoveryCode(code)}`)
    .digest('base64url');
}
