import { sql, type Kysely } from 'kysely';

// A person's own allow and block lists apply to their aliases too (rspamd's maps are keyed by
// every address mail reaches them at, from mail_addresses): a change of an alias changes the maps,
// so it bumps the policy version like the other tables of 2026_12_08_0601.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create trigger mail_addresses_mail_policy after insert or update or delete on mail_addresses
    for each statement execute function atrium_mail_policy_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger mail_addresses_mail_policy on mail_addresses`.execute(db);
}
