import { sql, type Kysely } from 'kysely';

// "Mail is flowing" (issue 42 item 2) now means the first message another server handed Postfix on
// port 25 (mail/lookups/inbound-mail.ts). Until this release Dovecot's quota_clone set it for any
// message in a mailbox, a colleague's through submission included, so a time already stored may
// not be one: it is cleared, and the next message from outside sets it again (the step reads "not
// done" meanwhile, never "done" when it is not). Frozen once landed: add a new migration instead
// of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update organizations set mail_first_received_at = null
    where mail_first_received_at is not null`.execute(db);
}

// Nothing to restore: the cleared times meant something else.
export async function down(): Promise<void> {}
