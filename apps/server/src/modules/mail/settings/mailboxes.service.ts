import { MAILBOXES_PAGE_SIZE, type Mailbox, type MailboxesPage } from '@atrium/contracts/mail-mailboxes';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { planCatalogOf } from '../../subscriptions/plan-catalog.ts';
import { listMailboxes, type MailboxRow } from './mailbox-usage.repository.ts';
import { decodeAddressCursor, encodeAddressCursor } from './address-cursor.ts';

const MIB = 1024 * 1024;

/**
 * A page of the organisation's mailboxes in address order, each with the plan's quota and its
 * usage. By address rather than fullest first: usage changes with every delivery, and a keyset
 * on a value that moves between two pages would show a mailbox twice or skip it; the address
 * does not move, users_org_email_idx already gives that order, and an admin finds a person by it.
 */
export async function getMailboxes(
  deps: { db: Db; config: Config },
  organizationId: string,
  query: { cursor?: string | undefined },
): Promise<MailboxesPage> {
  const subscription = await deps.db
    .selectFrom('subscriptions')
    .select('plan_key')
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  const quotaMb = planCatalogOf(deps.config).planOf(subscription?.plan_key ?? '').mailboxQuotaMb;
  const rows = await listMailboxes(deps.db, organizationId, {
    ...(query.cursor ? { after: decodeAddressCursor(query.cursor) } : {}),
    limit: MAILBOXES_PAGE_SIZE + 1,
  });
  const page = rows.slice(0, MAILBOXES_PAGE_SIZE);
  return {
    quotaPerMailboxMb: quotaMb,
    mailboxes: page.map((row) => toMailbox(row, quotaMb * MIB)),
    nextCursor: rows.length > MAILBOXES_PAGE_SIZE ? encodeAddressCursor(page.at(-1)!.email) : null,
  };
}

const toMailbox = (row: MailboxRow, quotaBytes: number): Mailbox => ({
  userId: row.id,
  name: `${row.first_name} ${row.last_name}`.trim(),
  email: row.email,
  status: row.status as Mailbox['status'],
  quotaBytes,
  usedBytes: row.storage_bytes === null ? null : Number(row.storage_bytes),
  messages: row.messages === null ? null : Number(row.messages),
  updatedAt: row.updated_at ? new Date(row.updated_at).toISOString() : null,
});
