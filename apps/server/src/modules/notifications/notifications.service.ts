import type { Notification, NotificationList } from '@atrium/contracts/notifications';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../lib/errors.ts';
import { decodeCursor } from '../../lib/keyset.ts';
import {
  countAll,
  countUnread,
  deleteAll,
  listNotifications,
  markAllRead,
  markRead,
  type NotificationRow,
  type Recipient,
} from './notifications.repository.ts';

function toNotification(row: NotificationRow): Notification {
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    link: row.link,
    read: row.read_at !== null,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * One page of the caller's notifications with the caller's unread total (for the badge) and
 * their total (what 'clear all' would remove).
 */
export async function notificationsPage(
  db: Db,
  who: Recipient,
  query: { limit: number; cursor?: string | undefined },
): Promise<NotificationList> {
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const [page, unreadCount, totalCount] = await Promise.all([
    listNotifications(db, who, { limit: query.limit, after }),
    countUnread(db, who),
    countAll(db, who),
  ]);
  return { items: page.rows.map(toNotification), nextCursor: page.nextCursor, unreadCount, totalCount };
}

/** Someone else's notification is "not found", exactly like one that never existed. */
export async function readOne(db: Db, who: Recipient, id: string): Promise<{ unreadCount: number }> {
  if (!(await markRead(db, who, id))) throw notFound('The notification');
  return { unreadCount: await countUnread(db, who) };
}

export async function readAll(db: Db, who: Recipient): Promise<{ unreadCount: number }> {
  await markAllRead(db, who);
  return { unreadCount: 0 };
}

export async function clearAll(db: Db, who: Recipient): Promise<{ deleted: number }> {
  return { deleted: await deleteAll(db, who) };
}
