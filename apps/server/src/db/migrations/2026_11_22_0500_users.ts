import { sql, type Kysely } from 'kysely';

// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Set-password links: invitations of new users and password resets sent by an admin.
  // Only the sha256 of the token is kept; a link works once, within 72 hours.
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('purpose', 'text', (c) => c.notNull().defaultTo('invite'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addCheckConstraint('invitations_purpose_check', sql`purpose in ('invite', 'reset')`)
    .execute();
  await db.schema.createIndex('invitations_user_idx').on('invitations').column('user_id').execute();

  // The users list sorts by name, e-mail, created (indexed in core) and last
  // sign-in; never signed in sorts as the oldest, so the key is never null and keyset works.
  await sql`create index users_org_last_sign_in_idx on users
    (organization_id, coalesce(last_sign_in_at, '-infinity'::timestamptz), id)`.execute(db);
  // The same four sorts under a status filter, so a rare status never scans the whole org.
  await sql`create index users_org_status_name_idx on users (organization_id, status, name_key, id)`.execute(
    db,
  );
  await sql`create index users_org_status_email_idx on users (organization_id, status, email, id)`.execute(
    db,
  );
  await sql`create index users_org_status_created_idx on users (organization_id, status, created_at, id)`.execute(
    db,
  );
  await sql`create index users_org_status_last_sign_in_idx on users
    (organization_id, status, coalesce(last_sign_in_at, '-infinity'::timestamptz), id)`.execute(db);
  // Prefix search ("ann%") on the full name, the last name and the e-mail. text_pattern_ops
  // lets LIKE use the index whatever the database's collation is.
  await sql`create index users_org_name_prefix_idx on users (organization_id, name_key text_pattern_ops)`.execute(
    db,
  );
  await sql`create index users_org_last_name_prefix_idx on users
    (organization_id, lower(last_name) text_pattern_ops)`.execute(db);
  await sql`create index users_org_email_prefix_idx on users (organization_id, email text_pattern_ops)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of [
    'users_org_email_prefix_idx',
    'users_org_last_name_prefix_idx',
    'users_org_name_prefix_idx',
    'users_org_status_last_sign_in_idx',
    'users_org_status_created_idx',
    'users_org_status_email_idx',
    'users_org_status_name_idx',
    'users_org_last_sign_in_idx',
  ]) {
    await db.schema.dropIndex(index).execute();
  }
  await db.schema.dropTable('invitations').execute();
}
