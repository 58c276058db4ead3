import { sql, type Kysely } from 'kysely';

// Reset links (issue 38 item 4, docs/sign-in.md): every password reset message carries, with its
// code, a single-use link that works in any browser, so someone who used up the codes of the
// browsers an account never signed in with cannot hold off the owner's new phone. Only the token's
// sha256 is stored; a completed reset or a password change deletes the user's links.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('password_reset_links')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index password_reset_links_user_idx on password_reset_links (user_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('password_reset_links').execute();
}
