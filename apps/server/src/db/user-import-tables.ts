import type { ColumnType, Generated } from 'kysely';
import type { Defaulted, JobStatus, Json, NullableTimestamp, Timestamp } from './database.ts';

// Data Migration's user imports (modules/migration).

export type UserImportStatus = JobStatus;

/** Data Migration: one CSV import of users (modules/migration). */
export interface UserImportsTable {
  id: Generated<string>;
  organization_id: string;
  file_name: string;
  format: string;
  status: Defaulted<UserImportStatus>;
  total_rows: number;
  cursor_row: Defaulted<number>;
  rows_done: Defaulted<number>;
  created_count: Defaulted<number>;
  updated_count: Defaulted<number>;
  unchanged_count: Defaulted<number>;
  error_count: Defaulted<number>;
  last_invite_at: NullableTimestamp;
  job_id: ColumnType<string | null, string | null | undefined, string | null>;
  started_by: ColumnType<string | null, string | null | undefined, string | null>;
  started_by_label: string;
  error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
}

export type ImportRowOutcome = 'created' | 'updated' | 'unchanged' | 'error';

/** The parsed rows of an import, its outcome per row once imported. */
export interface UserImportRowsTable {
  import_id: string;
  row_number: number;
  email: string;
  first_name: string;
  last_name: string;
  groups: Json;
  password_enc: ColumnType<string | null, string | null | undefined, string | null>;
  invite: Defaulted<boolean>;
  personal_email: ColumnType<string | null, string | null | undefined, string | null>;
  outcome: ColumnType<ImportRowOutcome | null, ImportRowOutcome | null | undefined, ImportRowOutcome | null>;
  message: ColumnType<string | null, string | null | undefined, string | null>;
}
