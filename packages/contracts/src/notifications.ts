import { z } from 'zod';

/** A notification of the signed-in user, as the header dropdown and the /notifications page show it. */
export const notificationSchema = z.object({
  id: z.uuid(),
  /** e.g. `domain.verified`, `user.added`, `app.installed`, `setup.steps_left`, `password.changed`. */
  kind: z.string(),
  title: z.string(),
  body: z.string(),
  /** A console path to open, or null. */
  link: z.string().nullable(),
  read: z.boolean(),
  createdAt: z.iso.datetime(),
});
export type Notification = z.infer<typeof notificationSchema>;

export const NOTIFICATIONS_PAGE_MAX = 100;

export const notificationListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(NOTIFICATIONS_PAGE_MAX).default(20),
  /** The `nextCursor` of the previous page; absent for the newest page. */
  cursor: z.string().min(1).max(200).optional(),
});
export type NotificationListQuery = z.input<typeof notificationListQuerySchema>;

export const notificationListSchema = z.object({
  items: z.array(notificationSchema),
  /** Pass as `cursor` to get the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
  /** Unread notifications of the caller in total, not only on this page. */
  unreadCount: z.number().int().min(0),
  /** All notifications of the caller, read or not: what 'clear all' would remove. */
  totalCount: z.number().int().min(0),
});
export type NotificationList = z.infer<typeof notificationListSchema>;

export const notificationIdParamsSchema = z.object({ id: z.uuid({ message: 'Not a notification id' }) });

export const unreadCountSchema = z.object({ unreadCount: z.number().int().min(0) });
export type UnreadCount = z.infer<typeof unreadCountSchema>;

export const clearedSchema = z.object({ deleted: z.number().int().min(0) });
