import { sql, type Kysely } from 'kysely';

// Mailbox usage as Dovecot's quota_clone plugin reports it over the dict protocol (issue 14,
// item 5), and when Postfix and Dovecot last asked Atrium anything (whether the mail servers answer).
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per mailbox, upserted once per Dovecot commit; gone with its user. Mail Settings lists
  // mailboxes from users (by address, users_org_email_idx) and joins this by primary key.
  await db.schema
    .createTable('mailbox_usage')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('storage_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('messages', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // The plan's total usage per organisation (the mail plan card) sums these rows.
  await db.schema
    .createIndex('mailbox_usage_org_idx')
    .on('mailbox_usage')
    .column('organization_id')
    .execute();

  // A row per kind ('postfix', 'dovecot'): shared by every Atrium process, written at most once a
  // minute per kind per process.
  await db.schema
    .createTable('mail_server_contacts')
    .addColumn('kind', 'text', (c) => c.primaryKey())
    .addColumn('last_asked_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mail_server_contacts').execute();
  await db.schema.dropTable('mailbox_usage').execute();
}
