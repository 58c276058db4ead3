import type { Kysely } from 'kysely';

// Frozen once landed: add a new migration instead of editing this one.
// Where Atrium POSTs an OpenID Connect Back-Channel Logout token for the app (optional; the
// client's registration follows it).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('apps').addColumn('backchannel_logout_uri', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('apps').dropColumn('backchannel_logout_uri').execute();
}
