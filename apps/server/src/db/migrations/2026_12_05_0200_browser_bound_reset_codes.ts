import type { Kysely } from 'kysely';

// Reset codes bound to the browser that asked (issue 38 item 4): `known_device` marks a code asked
// for from a browser the account has signed in with, so the cap shared by all other browsers does
// not count it; `sends` counts the messages that carried the code, so re-sends stay bounded.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('email_codes')
    .addColumn('known_device', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema
    .alterTable('email_codes')
    .addColumn('sends', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_codes').dropColumn('sends').execute();
  await db.schema.alterTable('email_codes').dropColumn('known_device').execute();
}
