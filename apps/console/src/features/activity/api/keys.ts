import type { ActivityFilter } from '@atrium/contracts/activity';

/** Query keys of the activity area. */
export const activityKeys = {
  all: ['activity'] as const,
  list: (filter: ActivityFilter) => [...activityKeys.all, 'list', filter] as const,
  recent: (count: number) => [...activityKeys.all, 'recent', count] as const,
  actors: () => [...activityKeys.all, 'actors'] as const,
};
