import { sql, type Kysely } from 'kysely';

// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A sign-up in progress, kept on the server so it survives a reload and
  // works in another tab; the browser holds only an HttpOnly cookie whose sha256 is the id.
  await db.schema
    .createTable('signup_flows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('stage', 'text', (c) => c.notNull().defaultTo('site'))
    .addColumn('organization_name', 'text')
    .addColumn('site_name', 'text')
    // Lowercased; the unique address check happens again in the finishing transaction.
    .addColumn('email', 'text')
    // The code itself lives in identity's email_codes (purpose 'signup', context = this id).
    .addColumn('email_verified_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addCheckConstraint('signup_flows_stage_check', sql`stage in ('site', 'email', 'verify', 'account')`)
    .execute();
  // Expired flows are swept by expires_at.
  await db.schema.createIndex('signup_flows_expires_idx').on('signup_flows').column('expires_at').execute();

  // The setup wizard's progress per organisation; absent for organisations
  // that did not come through sign-up, which therefore never see the wizard.
  await db.schema
    .createTable('organization_setup')
    .addColumn('organization_id', 'uuid', (c) =>
      c.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('current_step', 'text', (c) => c.notNull().defaultTo('profile'))
    .addColumn('done_steps', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('skipped_steps', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('completed_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'organization_setup_step_check',
      sql`current_step in ('profile', 'domain', 'verify', 'users', 'apps', 'finish')`,
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('organization_setup').execute();
  await db.schema.dropTable('signup_flows').execute();
}
