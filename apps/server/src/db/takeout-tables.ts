import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './database.ts';

// Takeout's table (modules/takeout, 2026_12_02_0100); listed in Database.

type BigCount = ColumnType<string | number | bigint, number | undefined, number>;

export type TakeoutStatus = 'queued' | 'running' | 'done' | 'failed';
export type TakeoutPhase = 'waiting' | 'directory' | 'activity' | 'mailboxes' | 'finished';

export interface TakeoutsTable {
  id: Generated<string>;
  organization_id: string;
  status: Generated<TakeoutStatus>;
  phase: Generated<TakeoutPhase>;
  rows_done: Generated<number>;
  mailboxes_total: Generated<number>;
  mailboxes_done: Generated<number>;
  messages_done: Generated<number>;
  size_bytes: BigCount;
  file_path: string | null;
  job_id: string | null;
  started_by: string | null;
  started_by_label: string;
  error: string | null;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
  expires_at: NullableTimestamp;
}

/** A one-time download link of an archive, for the console session that asked (2026_12_05_0300). */
export interface TakeoutDownloadLinksTable {
  id: Generated<string>;
  organization_id: string;
  takeout_id: string;
  session_id: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Date;
}
