import { sql, type Kysely } from 'kysely';

// App passwords found by a digest (issue 38 item 3): the sha256 of the whole password, so a
// correct one is recognised with one indexed read before any throttle, and guesses from others
// never keep a device out. An app password is 20 random base-32 characters (100 bits): a fast
// digest of it cannot be reversed the way one of a chosen password could, as with API tokens.
// Rows made before this migration have none until their next argon2-verified sign-in fills it.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('app_passwords').addColumn('digest', 'text').execute();
  await sql`create unique index app_passwords_digest_unique on app_passwords (digest) where digest is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('app_passwords').dropColumn('digest').execute();
}
