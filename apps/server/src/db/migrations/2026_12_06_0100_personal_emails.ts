import { sql, type Kysely } from 'kysely';

// Personal addresses (issue 42 item 1, docs/users.md): an invited user has no way to read their
// Atrium mailbox before they set a password, so the invitation goes to a personal (secondary)
// address of theirs, typed in Add user or read from a user file's "Personal email" / Google's
// "Recovery Email" / Microsoft's "Alternate email address". Lower-cased, an address, not unique
// (a family can share one); the CSV import stages it with its row. Additive: existing users have
// none. Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('personal_email', 'text', (c) =>
      c.check(sql`personal_email = lower(personal_email) and personal_email ~ '^[^@\\s]+@[^@\\s]+$'`),
    )
    .execute();
  await db.schema.alterTable('user_import_rows').addColumn('personal_email', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('user_import_rows').dropColumn('personal_email').execute();
  await db.schema.alterTable('users').dropColumn('personal_email').execute();
}
