import { sql, type Kysely } from 'kysely';

// Data Migration, mail from the old provider over IMAP (docs/mail.md, "Mail migration"): one row per mailbox,
// its progress, and per source folder the UIDVALIDITY and last UID copied, so a re-run copies
// only what is new. Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_migrations')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('target_email', 'text', (c) => c.notNull())
    .addColumn('source_host', 'text', (c) => c.notNull())
    .addColumn('source_port', 'integer', (c) => c.notNull())
    .addColumn('source_tls', 'text', (c) => c.notNull())
    .addColumn('source_login', 'text', (c) => c.notNull())
    // Sealed with a key derived from ATRIUM_SECRET; erased when the run ends, however it ends.
    .addColumn('source_password_enc', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('messages_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('messages_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes_total', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes_done', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('job_id', 'uuid')
    .addColumn('started_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('started_by_label', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('run_started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .addCheckConstraint(
      'mail_migrations_status_check',
      sql`status in ('queued', 'running', 'done', 'failed', 'cancelled')`,
    )
    .addCheckConstraint('mail_migrations_tls_check', sql`source_tls in ('tls', 'starttls', 'none')`)
    .execute();
  await sql`create index mail_migrations_org_idx on mail_migrations (organization_id, created_at desc)`.execute(
    db,
  );

  await db.schema
    .createTable('mail_migration_folders')
    .addColumn('migration_id', 'uuid', (c) =>
      c.notNull().references('mail_migrations.id').onDelete('cascade'),
    )
    .addColumn('source_path', 'text', (c) => c.notNull())
    .addColumn('target_path', 'text', (c) => c.notNull())
    // UIDs and UIDVALIDITY are unsigned 32-bit: bigint.
    .addColumn('uid_validity', 'bigint', (c) => c.notNull())
    .addColumn('last_uid', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('messages_copied', 'integer', (c) => c.notNull().defaultTo(0))
    // The last run's error in this folder, if any; the other folders go on.
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('mail_migration_folders_pk', ['migration_id', 'source_path'])
    .execute();
}
