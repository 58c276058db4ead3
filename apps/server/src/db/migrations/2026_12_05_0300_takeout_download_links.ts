import { sql, type Kysely } from 'kysely';

// Takeout (docs/takeout.md, issue 38): a download of an archive needs a link made a moment before
// by the admin's console session, used once, within a minute. The archive holds every mailbox of
// the organisation: a download URL found in a browser's history, a proxy's log or a shared screen
// must not fetch it, nor anyone's session but the one that asked. Signing out (the session row
// goes) ends its links. Frozen once landed: add a new migration instead.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('takeout_download_links')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('takeout_id', 'uuid', (c) => c.notNull().references('takeouts.id').onDelete('cascade'))
    .addColumn('session_id', 'text', (c) => c.notNull().references('console_sessions.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index takeout_download_links_expiry_idx on takeout_download_links (expires_at)`.execute(
    db,
  );
  await sql`create index takeout_download_links_takeout_idx on takeout_download_links (takeout_id)`.execute(
    db,
  );
  await sql`create index takeout_download_links_session_idx on takeout_download_links (session_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('takeout_download_links').execute();
}
