import { sql, type Kysely } from 'kysely';

// Out of office (issue 44 item 5, docs/mail.md "Filters, Junk and Out of office"): each user's
// automatic reply, set on their profile. Dovecot reads it from Atrium's dict socket at every
// delivery, so a change takes effect with the next message. Days are calendar dates (first and
// last inclusive); `version` changes with every save, so Pigeonhole compiles the new script.
// A row only once the user saves the card. Frozen once landed: add a new migration instead.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('out_of_office')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    // `YYYY-MM-DD` as text: read back as written by either database driver, never a Date shifted
    // by the server's time zone; the format makes text order the calendar's.
    .addColumn('first_day', 'text', (c) => c.notNull().check(sql`first_day ~ '^\\d{4}-\\d{2}-\\d{2}$'`))
    .addColumn('last_day', 'text', (c) => c.notNull().check(sql`last_day ~ '^\\d{4}-\\d{2}-\\d{2}$'`))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('out_of_office_days', sql`first_day <= last_day`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('out_of_office').execute();
}
