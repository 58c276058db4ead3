import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './database.ts';

// The mail area's tables (modules/mail); listed in Database beside the others.

/** Named passwords for mail clients (IMAP, SMTP submission); argon2id hashes only. */
export interface AppPasswordsTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  name: string;
  lookup: string;
  password_hash: string;
  /** sha256 of the whole password (2026_12_05_0100); null for older rows until their next sign-in. */
  digest: string | null;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
}

/** A mailbox's usage as Dovecot's quota_clone last wrote it (2026_11_28_0500). */
export interface MailboxUsageTable {
  user_id: string;
  organization_id: string;
  /** bigint: read through a cast to a number (a mailbox stays far below 2^53 bytes). */
  storage_bytes: ColumnType<string, number | string, number | string>;
  messages: ColumnType<string, number | string, number | string>;
  updated_at: Timestamp;
}

/** When Postfix ('postfix') or Dovecot ('dovecot') last asked Atrium anything. */
export interface MailServerContactsTable {
  kind: string;
  last_asked_at: Timestamp;
}

export type MailAddressKind = 'primary' | 'alias' | 'group' | 'catch_all';

/**
 * Every address mail can arrive at, unique across the deployment (2026_11_28_0100): users'
 * primary addresses (copied from users by a trigger), aliases, group addresses, catch-alls (`@domain`).
 */
export interface MailAddressesTable {
  id: Generated<string>;
  organization_id: string;
  address: string;
  kind: MailAddressKind;
  domain_id: string | null;
  user_id: string | null;
  group_id: string | null;
  created_at: Timestamp;
}
