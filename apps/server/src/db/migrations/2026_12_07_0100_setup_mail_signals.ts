import type { Kysely } from 'kysely';

// The setup checklist's mail steps (issue 42 item 2): "Publish your mail records" is judged from
// the last look-up of each verified domain's DNS mapping, stored here whenever the records are
// checked (the domain page, its "Check all records now"), so the dashboard asks no DNS server when
// it opens. "Mail is flowing" is the first time a mailbox of the organisation reported messages
// through Dovecot's quota_clone after its domain was verified; kept once written, so it never
// flips back. Additive: existing domains have no stored look-up yet, existing organisations no
// first message. Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('domains')
    .addColumn('records_checked_at', 'timestamptz')
    .addColumn('records_total', 'integer')
    .addColumn('records_ok', 'integer')
    .execute();
  await db.schema.alterTable('organizations').addColumn('mail_first_received_at', 'timestamptz').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('mail_first_received_at').execute();
  await db.schema
    .alterTable('domains')
    .dropColumn('records_checked_at')
    .dropColumn('records_total')
    .dropColumn('records_ok')
    .execute();
}
