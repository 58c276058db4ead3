import { sql, type Kysely } from 'kysely';

// The shared job queue (DESIGN.md "Jobs"): mail, and later back-channel logout, webhooks, imports.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(5))
    .addColumn('run_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    // A running job whose lock has lapsed belongs to a worker that died: claimable again.
    .addColumn('locked_until', 'timestamptz')
    // Which claim holds the job, so a worker that lost its lock cannot finish someone else's run.
    .addColumn('locked_by', 'uuid')
    .addColumn('last_error', 'text')
    .addColumn('progress', 'jsonb')
    .addColumn('organization_id', 'uuid', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'jobs_status_check',
      sql`status in ('queued', 'running', 'done', 'failed', 'cancelled')`,
    )
    .execute();
  // Claiming scans only what could be claimed: due queued jobs and running ones whose lock lapsed.
  await sql`create index jobs_queued_idx on jobs (run_at) where status = 'queued'`.execute(db);
  await sql`create index jobs_running_idx on jobs (locked_until) where status = 'running'`.execute(db);
  await sql`create index jobs_finished_idx on jobs (updated_at) where status in ('done', 'failed', 'cancelled')`.execute(
    db,
  );
  await sql`create index jobs_organization_idx on jobs (organization_id) where organization_id is not null`.execute(
    db,
  );

  // The message carrying a code: a code whose message was never sent does not count against
  // the address's hourly codes. No foreign key: finished jobs are purged after a day.
  await db.schema.alterTable('email_codes').addColumn('mail_job_id', 'uuid').execute();

  // Outbox mail is stored sealed from now on; plaintext rows written before hold live codes.
  await db.deleteFrom('mail_outbox' as never).execute();
}
