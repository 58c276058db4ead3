import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import type { SenderListName, SpamSettings } from '@atrium/contracts/mail-protection';

// Spam settings and sender lists; every function is scoped to one organisation, and a user's own
// list to that user as well. What rspamd reads is in rspamd-maps.repository.ts.

/** Whose list: the organisation's (`userId` null) or one user's own. */
export interface ListOwner {
  organizationId: string;
  userId: string | null;
}

export async function spamSettingsOf(db: DbOrTrx, organizationId: string) {
  return db
    .selectFrom('mail_spam_settings')
    .select(['sensitivity', 'greylisting'])
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
}

export async function saveSpamSettings(db: DbOrTrx, organizationId: string, settings: SpamSettings) {
  await db
    .insertInto('mail_spam_settings')
    .values({ organization_id: organizationId, ...settings })
    .onConflict((oc) =>
      oc.column('organization_id').doUpdateSet({ ...settings, updated_at: sql<Date>`now()` }),
    )
    .execute();
}

const ownedBy = (owner: ListOwner) =>
  owner.userId === null ? sql`user_id is null` : sql`user_id = ${owner.userId}`;

/** A page of one list in value order, after `after`: a range of its unique index. */
export async function listSenders(
  db: DbOrTrx,
  owner: ListOwner,
  list: SenderListName,
  page: { after?: string | undefined; limit: number },
) {
  const { rows } = await sql<{ id: string; list: SenderListName; value: string; created_at: Date }>`
    select id, list, value, created_at from mail_sender_lists
    where organization_id = ${owner.organizationId} and ${ownedBy(owner)} and list = ${list}
      ${page.after === undefined ? sql`` : sql`and value > ${page.after}`}
    order by value
    limit ${page.limit}`.execute(db);
  return rows;
}

export async function countSenders(db: DbOrTrx, owner: ListOwner): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select count(*) as n from mail_sender_lists
    where organization_id = ${owner.organizationId} and ${ownedBy(owner)}`.execute(db);
  return Number(rows[0]!.n);
}

/** The entry, or undefined when the list holds the value already. */
export async function insertSender(db: DbOrTrx, owner: ListOwner, list: SenderListName, value: string) {
  const { rows } = await sql<{ id: string; created_at: Date }>`
    insert into mail_sender_lists (organization_id, user_id, list, value)
    values (${owner.organizationId}, ${owner.userId}, ${list}, ${value})
    on conflict do nothing
    returning id, created_at`.execute(db);
  return rows[0];
}

/** Which list holds `value` already (a sender is on one list of an owner at most). */
export async function listHolding(db: DbOrTrx, owner: ListOwner, value: string) {
  const { rows } = await sql<{ list: SenderListName }>`
    select list from mail_sender_lists
    where organization_id = ${owner.organizationId} and ${ownedBy(owner)} and value = ${value}`.execute(db);
  return rows[0]?.list;
}

export async function deleteSender(db: DbOrTrx, owner: ListOwner, entryId: string) {
  const { rows } = await sql<{ list: SenderListName; value: string }>`
    delete from mail_sender_lists
    where id = ${entryId} and organization_id = ${owner.organizationId} and ${ownedBy(owner)}
    returning list, value`.execute(db);
  return rows[0];
}

/** The organisation's row, locked: adds count each other's entries until commit. */
export async function lockOrganization(db: DbOrTrx, organizationId: string) {
  await sql`select id from organizations where id = ${organizationId} for update`.execute(db);
}
