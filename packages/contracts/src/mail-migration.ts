import { z } from 'zod';

/**
 * Data Migration (docs/mail.md, "Mail migration"), mail from the old provider over IMAP: each mailbox is one
 * job that copies every folder and message into the user's Atrium mailbox; a re-run copies only
 * what is new.
 */

export const sourceTlsSchema = z.enum(['tls', 'starttls', 'none']);
export type SourceTls = z.infer<typeof sourceTlsSchema>;

export const SOURCE_TLS_LABELS: Record<SourceTls, string> = {
  tls: 'TLS (port 993)',
  starttls: 'STARTTLS (port 143)',
  none: 'None (trusted networks only)',
};

/** Mailboxes in one CSV file at most. */
export const MAIL_MIGRATION_MAX_ROWS = 1000;

export const mailSourceSchema = z.object({
  host: z
    .string()
    .trim()
    .toLowerCase()
    .min(1, 'Enter the old provider’s IMAP server')
    .max(253)
    .regex(/^[a-z0-9.-]+$|^\[?[0-9a-f:.]+\]?$/, 'Enter a host name such as imap.example.com'),
  port: z.coerce.number().int().min(1, 'Enter a port 1-65535').max(65535, 'Enter a port 1-65535'),
  tls: sourceTlsSchema,
  login: z.string().trim().min(1, 'Enter the login at the old provider').max(320),
  password: z.string().min(1, 'Enter the password or app password at the old provider').max(1024),
});

export const startMailMigrationSchema = mailSourceSchema.extend({
  /** The Atrium address (a user of the organisation with a mailbox) the mail goes into. */
  email: z.string().trim().toLowerCase().email('Enter the user’s Atrium address'),
});
export type StartMailMigration = z.infer<typeof startMailMigrationSchema>;

export const rerunMailMigrationSchema = z.object({
  /** Never kept after a run: a re-run asks again. */
  password: z.string().min(1, 'Enter the password at the old provider').max(1024),
});

export const mailMigrationFolderSchema = z.object({
  source: z.string(),
  target: z.string(),
  messagesCopied: z.number().int(),
  error: z.string().nullable(),
});

export const mailMigrationJobSchema = z.object({
  kind: z.literal('mail'),
  id: z.uuid(),
  status: z.enum(['queued', 'running', 'done', 'failed', 'cancelled']),
  email: z.string(),
  source: z.object({ host: z.string(), port: z.number().int(), tls: sourceTlsSchema, login: z.string() }),
  /** Runs so far, the first included; the counts are the latest run's. */
  runs: z.number().int(),
  messagesTotal: z.number().int(),
  messagesDone: z.number().int(),
  bytesTotal: z.number(),
  bytesDone: z.number(),
  /** Folders whose last run failed (the others went on). */
  folderErrors: z.number().int(),
  startedBy: z.string(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable(),
});
export type MailMigrationJob = z.infer<typeof mailMigrationJobSchema>;

export const mailMigrationDetailSchema = mailMigrationJobSchema.extend({
  folders: z.array(mailMigrationFolderSchema),
});
export type MailMigrationDetail = z.infer<typeof mailMigrationDetailSchema>;

export const mailMigrationsStartedSchema = z.object({ jobs: z.array(mailMigrationJobSchema) });

export const mailMigrationParamsSchema = z.object({ id: z.uuid('Not a valid migration id') });
