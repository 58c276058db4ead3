import { sql, type Kysely } from 'kysely';

// Frozen once landed: add a new migration instead of editing this one.
// Where an app may send users after RP-initiated logout, chosen by the admin (the client's
// registration follows it). Back-channel logout will add its URI beside this column.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('apps')
    .addColumn('post_logout_redirect_uris', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  // Installed apps keep what their client was registered with until now (their launch URL).
  await sql`
    update apps a
       set post_logout_redirect_uris = coalesce(c.metadata->'post_logout_redirect_uris', '[]'::jsonb)
      from oidc_clients c
     where c.client_id = a.client_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('apps').dropColumn('post_logout_redirect_uris').execute();
}
