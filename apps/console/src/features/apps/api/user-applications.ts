import type { UserApplicationsResponse } from '@atrium/contracts/apps';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appsKeys } from './keys.ts';

/** The seed spec's user-applications call: groups, site name, and the apps this user may open. */
export const getUserApplications = (signal?: AbortSignal) =>
  api.get<UserApplicationsResponse>('/api/me/applications', { signal });

export const userApplicationsQuery = () =>
  queryOptions({ queryKey: appsKeys.mine(), queryFn: ({ signal }) => getUserApplications(signal) });

export function useUserApplications() {
  return useQuery(userApplicationsQuery());
}
