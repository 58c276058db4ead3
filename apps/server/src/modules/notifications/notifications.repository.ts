import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import { afterCursor, createdAtKey, pageOf, type KeysetPosition } from '../../lib/keyset.ts';

// Every function takes both the organisation and the user: a notification is only ever read or
// changed by its own recipient, inside the recipient's organisation.
export interface Recipient {
  organizationId: string;
  userId: string;
}

export interface NotificationRow {
  id: string;
  kind: string;
  title: string;
  body: string;
  link: string | null;
  read_at: Date | null;
  created_at: Date;
  created_key: string;
}

/** The recipient's notifications, newest first, `limit` per page after `after`. */
export async function listNotifications(
  db: DbOrTrx,
  who: Recipient,
  page: { limit: number; after?: KeysetPosition | undefined },
): Promise<{ rows: NotificationRow[]; nextCursor: string | null }> {
  let query = db
    .selectFrom('notifications as n')
    .select(['n.id', 'n.kind', 'n.title', 'n.body', 'n.link', 'n.read_at', 'n.created_at'])
    .select(createdAtKey('n').as('created_key'))
    .where('n.user_id', '=', who.userId)
    .where('n.organization_id', '=', who.organizationId);
  if (page.after) query = query.where(afterCursor('n', page.after));
  const rows = await query
    .orderBy('n.created_at', 'desc')
    .orderBy('n.id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return pageOf(rows, page.limit);
}

/** Served by the partial index on unread rows. */
export async function countUnread(db: DbOrTrx, who: Recipient): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', who.userId)
    .where('organization_id', '=', who.organizationId)
    .where('read_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Read or not; served by the index on (user_id, created_at). */
export async function countAll(db: DbOrTrx, who: Recipient): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', who.userId)
    .where('organization_id', '=', who.organizationId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Whether the recipient has this notification at all (read or not). */
export async function markRead(db: DbOrTrx, who: Recipient, id: string): Promise<boolean> {
  const found = await db
    .updateTable('notifications')
    // Keeps the first read time when it is marked again.
    .set({ read_at: sql<Date>`coalesce(read_at, now())` })
    .where('id', '=', id)
    .where('user_id', '=', who.userId)
    .where('organization_id', '=', who.organizationId)
    .returning('id')
    .executeTakeFirst();
  return found !== undefined;
}

export async function markAllRead(db: DbOrTrx, who: Recipient): Promise<void> {
  await db
    .updateTable('notifications')
    .set({ read_at: sql<Date>`now()` })
    .where('user_id', '=', who.userId)
    .where('organization_id', '=', who.organizationId)
    .where('read_at', 'is', null)
    .execute();
}

/** 'clear all': the recipient's notifications are deleted, read or not. */
export async function deleteAll(db: DbOrTrx, who: Recipient): Promise<number> {
  const result = await db
    .deleteFrom('notifications')
    .where('user_id', '=', who.userId)
    .where('organization_id', '=', who.organizationId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
