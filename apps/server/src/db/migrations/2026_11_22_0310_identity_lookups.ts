import type { Kysely } from 'kysely';

// Frozen once landed: add a new migration instead of editing this one.
// The sign-in page finds its code by the interaction it belongs to (purpose + context), not by
// address; without this index that lookup scans every code of the last day.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('email_codes_context_idx')
    .on('email_codes')
    .columns(['purpose', 'context', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('email_codes_context_idx').execute();
}
