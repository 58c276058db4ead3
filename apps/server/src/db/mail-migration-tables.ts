import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './database.ts';

// Mail migration's tables (modules/migration, 2026_11_29_0100); listed in Database.

/** bigint columns: read as a string (or bigint) and turned into a number by the repository. */
type BigCount = ColumnType<string | number | bigint, number | undefined, number>;

export type SourceTls = 'tls' | 'starttls' | 'none';
export type MailMigrationStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/** One mailbox copied from an old provider's IMAP server into a user's Atrium mailbox. */
export interface MailMigrationsTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  target_email: string;
  source_host: string;
  source_port: number;
  source_tls: SourceTls;
  source_login: string;
  source_password_enc: string | null;
  status: Generated<MailMigrationStatus>;
  runs: Generated<number>;
  messages_total: Generated<number>;
  messages_done: Generated<number>;
  bytes_total: BigCount;
  bytes_done: BigCount;
  job_id: string | null;
  started_by: string | null;
  started_by_label: string;
  error: string | null;
  created_at: Timestamp;
  run_started_at: Timestamp;
  finished_at: NullableTimestamp;
}

/** Per source folder: where it goes, and how far it has been copied (for incremental re-runs). */
export interface MailMigrationFoldersTable {
  migration_id: string;
  source_path: string;
  target_path: string;
  uid_validity: BigCount;
  last_uid: BigCount;
  messages_copied: Generated<number>;
  error: string | null;
}
