import { sql, type Kysely } from 'kysely';

// Data Migration, users from a CSV file (README, "Data Migration"). An import keeps its parsed rows in the
// database: a job that survives a restart reads them from here, in batches, after the request
// that uploaded the file is long gone, and the result file is made from them.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_imports')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('total_rows', 'integer', (c) => c.notNull())
    // The last row number whose batch committed: a restarted job goes on after it.
    .addColumn('cursor_row', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rows_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unchanged_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error_count', 'integer', (c) => c.notNull().defaultTo(0))
    // Invitations go out one every so often: the time the last one queued is due.
    .addColumn('last_invite_at', 'timestamptz')
    .addColumn('job_id', 'uuid')
    .addColumn('started_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('started_by_label', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .addCheckConstraint(
      'user_imports_status_check',
      sql`status in ('queued', 'running', 'done', 'failed', 'cancelled')`,
    )
    .execute();
  await sql`create index user_imports_org_idx on user_imports (organization_id, created_at desc)`.execute(db);

  await db.schema
    .createTable('user_import_rows')
    .addColumn('import_id', 'uuid', (c) => c.notNull().references('user_imports.id').onDelete('cascade'))
    .addColumn('row_number', 'integer', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('groups', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    // Sealed with a key derived from ATRIUM_SECRET; erased as soon as the row is imported.
    .addColumn('password_enc', 'text')
    .addColumn('invite', 'boolean', (c) => c.notNull().defaultTo(false))
    // Null until imported: created, updated, unchanged or error (with the reason in message).
    .addColumn('outcome', 'text')
    .addColumn('message', 'text')
    .addPrimaryKeyConstraint('user_import_rows_pk', ['import_id', 'row_number'])
    .execute();
}
