import type { Kysely } from 'kysely';

// Throttling that hurts the guesser, not the owner (issue 30 item 2): a failure made from a
// browser the account had already signed in with (its device cookie) is marked, and such failures
// have counters of their own, so guesses from elsewhere cannot hold the owner's browsers up
// (modules/auth/sign-in/throttle.ts).
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sign_in_failures')
    .addColumn('known_device', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sign_in_failures').dropColumn('known_device').execute();
}
