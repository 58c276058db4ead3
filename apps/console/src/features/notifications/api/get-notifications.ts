import type { NotificationList } from '@atrium/contracts/notifications';
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { notificationsKeys } from './keys.ts';
import { notificationsPollInterval } from './poll-interval.ts';

/** How many the header dropdown shows. */
export const LATEST_COUNT = 8;
const PAGE_SIZE = 20;

export function getNotifications(params: { limit: number; cursor?: string | undefined }) {
  return api.get<NotificationList>('/api/notifications', { query: params });
}

/** The newest few with the unread total, polled for the header (both layouts share it). */
export const latestNotificationsQuery = () =>
  queryOptions({
    queryKey: notificationsKeys.latest(),
    queryFn: () => getNotifications({ limit: LATEST_COUNT }),
    refetchInterval: notificationsPollInterval(),
    // TanStack pauses the interval while the tab is hidden; catch up as soon as it is back.
    refetchOnWindowFocus: true,
    staleTime: 5_000,
  });

export function useLatestNotifications() {
  return useQuery(latestNotificationsQuery());
}

/** The full list for /notifications, one keyset page after another. */
export const notificationPagesQuery = () =>
  infiniteQueryOptions({
    queryKey: notificationsKeys.pages(),
    queryFn: ({ pageParam }) => getNotifications({ limit: PAGE_SIZE, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

export function useNotificationPages() {
  return useInfiniteQuery(notificationPagesQuery());
}
