import type { Generated } from 'kysely';
import type { Timestamp } from './database.ts';

// Password reset's own table (modules/auth/password-reset, 2026_12_05_0400); listed in Database.

/** A reset link carried by one reset message, usable once from any browser; only its hash is stored. */
export interface PasswordResetLinksTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Date;
}
