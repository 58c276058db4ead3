import type { ActivityActors } from '@atrium/contracts/activity';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { activityKeys } from './keys.ts';

export function getActivityActors() {
  return api.get<ActivityActors>('/api/activity/actors');
}

/** Everyone who appears in the log, for the actor filter. */
export const activityActorsQuery = () =>
  queryOptions({ queryKey: activityKeys.actors(), queryFn: getActivityActors, staleTime: 60_000 });

export function useActivityActors() {
  return useQuery(activityActorsQuery());
}
