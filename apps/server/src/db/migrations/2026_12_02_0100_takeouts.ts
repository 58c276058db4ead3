import { sql, type Kysely } from 'kysely';

// Takeout (docs/takeout.md): one row per export of an organisation, its progress, and where its
// archive lies under DATA_DIR until it expires. Frozen once landed: add a new migration instead.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('takeouts')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('phase', 'text', (c) => c.notNull().defaultTo('waiting'))
    .addColumn('rows_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mailboxes_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mailboxes_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('messages_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('size_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    // Relative to DATA_DIR; null until the archive is complete, and again once it expired.
    .addColumn('file_path', 'text')
    .addColumn('job_id', 'uuid')
    .addColumn('started_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('started_by_label', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz')
    .addCheckConstraint('takeouts_status_check', sql`status in ('queued', 'running', 'done', 'failed')`)
    .execute();
  await sql`create index takeouts_org_idx on takeouts (organization_id, created_at desc)`.execute(db);
  // One export at a time per organisation: a second start while one runs is a conflict.
  await sql`create unique index takeouts_one_running on takeouts (organization_id)
    where status in ('queued', 'running')`.execute(db);
}
