import type { ActivityFilter, ActivityList } from '@atrium/contracts/activity';
import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { activityKeys } from './keys.ts';

const PAGE_SIZE = 50;

export function getActivity(params: ActivityFilter & { limit: number; cursor?: string | undefined }) {
  return api.get<ActivityList>('/api/activity', { query: params });
}

/** The filtered log, one keyset page after another ("Show older entries"). */
export const activityPagesQuery = (filter: ActivityFilter) =>
  infiniteQueryOptions({
    queryKey: activityKeys.list(filter),
    queryFn: ({ pageParam }) => getActivity({ ...filter, limit: PAGE_SIZE, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

export function useActivityPages(filter: ActivityFilter) {
  return useInfiniteQuery(activityPagesQuery(filter));
}

/** The newest few entries, for the dashboard. */
export const recentActivityQuery = (count: number) =>
  queryOptions({
    queryKey: activityKeys.recent(count),
    queryFn: () => getActivity({ limit: count }),
  });

export function useRecentActivity(count: number) {
  return useQuery(recentActivityQuery(count));
}

/** The CSV export is a plain download: the browser sends the session cookie with a GET. */
export function activityExportUrl(filter: ActivityFilter): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (value) params.set(key, String(value));
  const search = params.toString();
  return `/api/activity/export${search ? `?${search}` : ''}`;
}
