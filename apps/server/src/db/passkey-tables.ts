import type { Generated } from 'kysely';
import type { Defaulted, NullableTimestamp, Timestamp } from './database.ts';

// Passkeys (modules/auth, WebAuthn): credentials and their single-use challenges.

/** A registered passkey; the public key is COSE, base64url. */
export interface PasskeysTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  /** bigint: PostgreSQL hands it back as a string. */
  counter: Defaulted<string | number>;
  /** Comma-separated (`internal,hybrid`). */
  transports: Defaulted<string>;
  backup_eligible: boolean;
  backed_up: boolean;
  name: string;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
}

export type ChallengePurpose = 'registration' | 'authentication';

export interface WebauthnChallengesTable {
  challenge: string;
  purpose: ChallengePurpose;
  context: string;
  user_id: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
}
