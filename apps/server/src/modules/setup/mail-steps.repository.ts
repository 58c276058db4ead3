import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';

export interface MailStepFacts {
  /** Verified domains, the primary first, each with its last stored look-up of the DNS mapping. */
  domains: Array<{
    id: string;
    name: string;
    recordsCheckedAt: Date | null;
    recordsTotal: number | null;
    recordsOk: number | null;
  }>;
  mailFirstReceivedAt: Date | null;
}

/**
 * What the checklist's mail steps are judged from: stored results only, no DNS look-up (the
 * domain page stores each look-up; Postfix's port 25 the first message from outside). Two small reads by the
 * organisation's indexes; the plan caps its domains.
 */
export async function findMailStepFacts(db: DbOrTrx, organizationId: string): Promise<MailStepFacts> {
  const [domains, organization] = await Promise.all([
    db
      .selectFrom('domains')
      .select(['id', 'name', 'records_checked_at', 'records_total', 'records_ok'])
      .where('organization_id', '=', organizationId)
      .where('state', '=', 'verified')
      .orderBy('is_primary', 'desc')
      .orderBy('name')
      .execute(),
    db
      .selectFrom('organizations')
      .select('mail_first_received_at')
      .where('id', '=', organizationId)
      .executeTakeFirst(),
  ]);
  return {
    domains: domains.map((row) => ({
      id: row.id,
      name: row.name,
      recordsCheckedAt: row.records_checked_at,
      recordsTotal: row.records_total,
      recordsOk: row.records_ok,
    })),
    mailFirstReceivedAt: organization?.mail_first_received_at ?? null,
  };
}

/**
 * "Mail is flowing": the first message another server gave Postfix on port 25 for a verified
 * domain of the organisation (mail/lookups/inbound-mail.ts), written once and never cleared.
 * Postfix asks for every inbound recipient, so this is one statement on two unique indexes
 * (domains_verified_name_unique, the organisation's key); once set, `is null` matches no row and
 * nothing is written.
 */
export async function noteFirstInboundMail(db: DbOrTrx, domain: string): Promise<void> {
  await sql`
    update organizations set mail_first_received_at = now()
    where id = (select organization_id from domains where name = ${domain} and state = 'verified')
      and mail_first_received_at is null`.execute(db);
}
