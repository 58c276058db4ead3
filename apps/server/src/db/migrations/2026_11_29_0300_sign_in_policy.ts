import { sql, type Kysely } from 'kysely';

// The organisation's sign-in policy and trusted browsers (issue 17 items 5 and 6).
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per organisation, written on its first change; no row is today's behaviour
  // (nobody must have a strong factor, the e-mail code is a factor, browsers may be trusted).
  await db.schema
    .createTable('sign_in_policies')
    .addColumn('organization_id', 'uuid', (c) =>
      c.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('strong_factor_required', 'text', (c) => c.notNull().defaultTo('nobody'))
    .addColumn('email_code_allowed', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('trusted_browsers_allowed', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // A browser (the hash of its device cookie) whose sign-ins skip the second factor until
  // `trusted_until`; one row per user and browser.
  await db.schema
    .createTable('trusted_browsers')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('device_hash', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('trusted_until', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .addUniqueConstraint('trusted_browsers_user_device_key', ['user_id', 'device_hash'])
    .execute();

  // A sign-in whose factors were right but which must first set up a strong factor (the
  // policy's forced enrolment), by interaction uid.
  await db.schema
    .createTable('sign_in_enrolments')
    .addColumn('context', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sign_in_enrolments').execute();
  await db.schema.dropTable('trusted_browsers').execute();
  await db.schema.dropTable('sign_in_policies').execute();
}
