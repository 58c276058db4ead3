import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './database.ts';

// Spam protection and sending limits (modules/mail-protection, 2026_12_08_0601).

export interface MailSpamSettingsTable {
  organization_id: string;
  sensitivity: 'relaxed' | 'standard' | 'strict';
  greylisting: boolean;
  updated_at: Timestamp;
}

/** user_id null: the organisation's list; otherwise the user's own. */
export interface MailSenderListsTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string | null;
  list: 'allow' | 'block';
  value: string;
  created_at: Timestamp;
}

/** The hour a user is sending in, from its first counted recipient. */
export interface MailSendingUsersTable {
  user_id: string;
  window_started_at: Timestamp;
  recipients: number;
  notified: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface MailSendingOrganizationsTable {
  organization_id: string;
  window_started_at: Timestamp;
  recipients: number;
  notified: ColumnType<boolean, boolean | undefined, boolean>;
}

/** One row: bumped by triggers whenever what rspamd's maps hold may have changed. */
export interface MailPolicyVersionTable {
  id: number;
  version: ColumnType<string, number | string, number | string>;
  changed_at: Timestamp;
}
