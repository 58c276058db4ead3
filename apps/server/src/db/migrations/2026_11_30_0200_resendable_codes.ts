import { sql, type Kysely } from 'kysely';

// E-mail codes that can be sent again (issue 30 item 2): the code itself, sealed with a key derived
// from ATRIUM_SECRET (the HMAC stays what is checked), so a new sign-in or a second reset request
// re-sends the live code instead of a new one using up the hour's codes; `sent_at`: when its
// message was last queued (a code is sent again at most once a minute).
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_codes').addColumn('code_sealed', 'text').execute();
  await db.schema
    .alterTable('email_codes')
    .addColumn('sent_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_codes').dropColumn('sent_at').execute();
  await db.schema.alterTable('email_codes').dropColumn('code_sealed').execute();
}
