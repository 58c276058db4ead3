import type { DbOrTrx } from '../../db/database.ts';
import { findConfirmedAuthenticatorOfUser } from './authenticator.repository.ts';
import { countPasskeys } from './passkeys.repository.ts';

/** Which strong factors a user has: what the second step asks for, and what "Use another way" offers. */
export interface StrongFactors {
  passkey: boolean;
  totp: boolean;
}

export async function strongFactorsOf(db: DbOrTrx, userId: string): Promise<StrongFactors> {
  const [passkeys, app] = await Promise.all([
    countPasskeys(db, userId),
    findConfirmedAuthenticatorOfUser(db, userId),
  ]);
  return { passkey: passkeys > 0, totp: !!app };
}

/** The strongest factor first (issue 17 item 4): a passkey, then the authenticator app. */
export function strongestOf(has: StrongFactors): 'passkey' | 'totp' | undefined {
  if (has.passkey) return 'passkey';
  if (has.totp) return 'totp';
  return undefined;
}
