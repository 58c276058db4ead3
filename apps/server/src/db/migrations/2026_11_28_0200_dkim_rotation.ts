import type { Kysely } from 'kysely';

// DKIM signing and key rotation (issue 14). A domain signs with its current key (the one made
// when it was added, selector 'atrium', until rotated). Rotating adds a *next* key under a new
// selector, published beside the current one; switching makes it current and keeps the old one's
// public half published (*previous*) until the admin retires it, so mail signed with the old key
// and still in transit keeps verifying. The old private key is dropped at the switch: nothing
// signs with it any more.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('domains')
    .addColumn('dkim_selector', 'text', (c) => c.notNull().defaultTo('atrium'))
    .addColumn('dkim_next_selector', 'text')
    .addColumn('dkim_next_private_key_enc', 'text')
    .addColumn('dkim_next_public_key', 'text')
    .addColumn('dkim_next_created_at', 'timestamptz')
    .addColumn('dkim_previous_selector', 'text')
    .addColumn('dkim_previous_public_key', 'text')
    .addColumn('dkim_switched_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('domains')
    .dropColumn('dkim_selector')
    .dropColumn('dkim_next_selector')
    .dropColumn('dkim_next_private_key_enc')
    .dropColumn('dkim_next_public_key')
    .dropColumn('dkim_next_created_at')
    .dropColumn('dkim_previous_selector')
    .dropColumn('dkim_previous_public_key')
    .dropColumn('dkim_switched_at')
    .execute();
}
