import { sql, type Kysely } from 'kysely';

// App passwords (issue 14): named passwords a user makes for mail clients that cannot do OAuth.
// Only an argon2id hash is kept; `lookup` is the password's first characters, so a sign-in
// verifies one hash instead of all of the user's. Revoking deletes the row.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('app_passwords')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('lookup', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .addUniqueConstraint('app_passwords_user_name_unique', ['user_id', 'name'])
    .execute();
  // Sign-in: the user's passwords with this prefix (usually one).
  await db.schema
    .createIndex('app_passwords_user_lookup_idx')
    .on('app_passwords')
    .columns(['user_id', 'lookup'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('app_passwords').execute();
}
