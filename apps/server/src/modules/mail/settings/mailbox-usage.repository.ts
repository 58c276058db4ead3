import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';

/** Users who hold a mailbox (mail-lookups.repository.ts): only they have usage to keep. */
const HAS_MAILBOX = ['active', 'suspended', 'invited'] as const;

/**
 * Stores what Dovecot's quota_clone reported for `address`, in one statement: the user is found
 * by the unique index on users' addresses and the row upserted; nothing is written for an
 * address with no mailbox. A value not reported keeps the one stored. True when written.
 */
export async function saveMailboxUsage(
  db: Db,
  address: string,
  usage: { storageBytes?: number; messages?: number },
): Promise<boolean> {
  const storage = usage.storageBytes ?? null;
  const messages = usage.messages ?? null;
  const result = await sql`
    insert into mailbox_usage (user_id, organization_id, storage_bytes, messages, updated_at)
    select id, organization_id, coalesce(${storage}::bigint, 0), coalesce(${messages}::bigint, 0), now()
    from users where email = ${address} and status in (${sql.join(HAS_MAILBOX.map((s) => sql.lit(s)))})
    on conflict (user_id) do update set
      storage_bytes = coalesce(${storage}::bigint, mailbox_usage.storage_bytes),
      messages = coalesce(${messages}::bigint, mailbox_usage.messages),
      updated_at = now()`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

export interface MailboxRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  status: string;
  storage_bytes: number | null;
  messages: number | null;
  updated_at: Date | null;
}

/**
 * One page of the organisation's mailboxes by address, after `after`: users_org_email_idx gives
 * the order (the address is unique, so it is the whole keyset), the usage row comes by primary key.
 */
export async function listMailboxes(
  db: Db,
  organizationId: string,
  options: { after?: string; limit: number },
): Promise<MailboxRow[]> {
  let query = db
    .selectFrom('users')
    .leftJoin('mailbox_usage', 'mailbox_usage.user_id', 'users.id')
    .select([
      'users.id',
      'users.email',
      'users.first_name',
      'users.last_name',
      'users.status',
      sql<number | null>`mailbox_usage.storage_bytes::float8`.as('storage_bytes'),
      sql<number | null>`mailbox_usage.messages::float8`.as('messages'),
      'mailbox_usage.updated_at',
    ])
    .where('users.organization_id', '=', organizationId)
    .where('users.status', 'in', [...HAS_MAILBOX])
    .orderBy('users.email')
    .limit(options.limit);
  if (options.after !== undefined) query = query.where('users.email', '>', options.after);
  return query.execute();
}

/** The organisation's total usage: what quota_clone last wrote for each of its mailboxes. */
export async function organizationStorageBytes(db: Db, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('mailbox_usage')
    .select(sql<number>`coalesce(sum(storage_bytes), 0)::float8`.as('total'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}
