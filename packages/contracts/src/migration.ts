import { z } from 'zod';
import { mailMigrationJobSchema } from './mail-migration.ts';

/**
 * Data Migration (README, "Data Migration"): users from a CSV file now; mail over IMAP later. The page
 * lists every kind of migration job through one schema, told apart by `kind`.
 */

/**
 * The largest file the import takes: enough for IMPORT_MAX_ROWS rows of the widest format it reads
 * (a Microsoft 365 export runs about 390 bytes a row: 38.6 MB for 100,000 users, 58 MB for 150,000).
 * The file is read as it arrives, never whole in memory.
 */
export const IMPORT_MAX_BYTES = 64 * 1024 * 1024;
/** Rows in one file at most (Google Workspace's own limit for a user upload). */
export const IMPORT_MAX_ROWS = 150_000;
/** A dry run lists this many errors at most; the counts cover every row. */
export const DRY_RUN_MAX_ERRORS = 1000;

export const userImportFormatSchema = z.enum(['atrium', 'google', 'microsoft']);
export type UserImportFormat = z.infer<typeof userImportFormatSchema>;

export const USER_IMPORT_FORMAT_LABELS: Record<UserImportFormat, string> = {
  atrium: 'Atrium export',
  google: 'Google Workspace',
  microsoft: 'Microsoft 365',
};

export const importCountsSchema = z.object({
  create: z.number().int(),
  update: z.number().int(),
  unchanged: z.number().int(),
  errors: z.number().int(),
});
export type ImportCounts = z.infer<typeof importCountsSchema>;

export const rowErrorSchema = z.object({
  /** The row as a spreadsheet numbers it: the header is row 1. */
  row: z.number().int(),
  email: z.string(),
  message: z.string(),
});
export type RowError = z.infer<typeof rowErrorSchema>;

/** The name the file had on the admin's computer, passed in the query beside the raw CSV body. */
export const userImportQuerySchema = z.object({
  fileName: z.string().trim().min(1).max(255).default('users.csv'),
});

export const dryRunSchema = z.object({
  format: userImportFormatSchema,
  totalRows: z.number().int(),
  counts: importCountsSchema,
  /** The first DRY_RUN_MAX_ERRORS errors, by row, apart from the rows beyond the free seats. */
  errors: z.array(rowErrorSchema),
  /** Rows beyond the free seats (counted in counts.errors), said once; null when every new user fits. */
  seats: z.object({ moreNeeded: z.number().int(), message: z.string() }).nullable(),
});
export type DryRun = z.infer<typeof dryRunSchema>;

export const migrationJobStatusSchema = z.enum(['queued', 'running', 'done', 'failed', 'cancelled']);
export type MigrationJobStatus = z.infer<typeof migrationJobStatusSchema>;

export const userImportJobSchema = z.object({
  kind: z.literal('user-import'),
  id: z.uuid(),
  fileName: z.string(),
  format: userImportFormatSchema,
  status: migrationJobStatusSchema,
  totalRows: z.number().int(),
  rowsDone: z.number().int(),
  /** What was done so far: created, updated, unchanged and error rows. */
  counts: importCountsSchema,
  startedBy: z.string(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Why a failed job failed. */
  error: z.string().nullable(),
});
export type UserImportJob = z.infer<typeof userImportJobSchema>;

/** Every kind of migration job: user imports and mailboxes copied over IMAP. */
export const migrationJobSchema = z.discriminatedUnion('kind', [userImportJobSchema, mailMigrationJobSchema]);
export type MigrationJob = z.infer<typeof migrationJobSchema>;

export const migrationJobsSchema = z.object({ jobs: z.array(migrationJobSchema) });
export type MigrationJobs = z.infer<typeof migrationJobsSchema>;

export const userImportParamsSchema = z.object({ id: z.uuid('Not a valid import id') });

export const isFinished = (status: MigrationJobStatus) =>
  status === 'done' || status === 'failed' || status === 'cancelled';
