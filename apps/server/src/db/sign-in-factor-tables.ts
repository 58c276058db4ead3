import type { Generated } from 'kysely';
import type { Defaulted, NullableTimestamp, Timestamp } from './database.ts';

// Second factors of sign-in (modules/auth): authenticator apps, recovery codes, sign-ins between
// their password and their second factor.

/** A user's authenticator app (TOTP); the secret is sealed, `last_used_step` stops replays. */
export interface AuthenticatorAppsTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  secret_sealed: string;
  confirmed_at: NullableTimestamp;
  last_used_step: number | null;
  created_at: Timestamp;
}

/** Single-use recovery codes; HMACs only. */
export interface RecoveryCodesTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  code_hash: string;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export type SecondFactor = 'passkey' | 'totp' | 'recovery' | 'email';

/** A sign-in past its password, waiting for its second factor (`context` = interaction uid). */
export interface SignInProgressTable {
  context: string;
  identifier: string;
  user_id: string;
  factor: SecondFactor;
  attempts: Defaulted<number>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export type StrongFactorRequired = 'nobody' | 'admins' | 'everyone';

/** An organisation's sign-in policy; no row means the defaults. */
export interface SignInPoliciesTable {
  organization_id: string;
  strong_factor_required: Defaulted<StrongFactorRequired>;
  email_code_allowed: Defaulted<boolean>;
  trusted_browsers_allowed: Defaulted<boolean>;
  updated_at: Timestamp;
}

/** A browser whose sign-ins skip the second factor until `trusted_until` (hash of its device cookie). */
export interface TrustedBrowsersTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  device_hash: string;
  user_agent: string | null;
  trusted_until: Timestamp;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
}

/** A sign-in past its factors that must set up a strong one before it completes. */
export interface SignInEnrolmentsTable {
  context: string;
  organization_id: string;
  user_id: string;
  email: string;
  expires_at: Timestamp;
}
