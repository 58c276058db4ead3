import type { Kysely } from 'kysely';

// Issue 43 item 4: whether a user's default calendar and address book are on Radicale is kept
// here, not in the memory of one process. `checked_at` is when they were last found or made:
// the DAV gate looks again once it is older than a few minutes (or null, after a collection was
// deleted through it), and makes any that is missing. A row exists once the defaults were made
// the first time. Existing rows start unchecked, so each account is looked at once after the
// update. Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dav_accounts').addColumn('checked_at', 'timestamptz').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dav_accounts').dropColumn('checked_at').execute();
}
