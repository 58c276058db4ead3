import type { Dashboard } from '@atrium/contracts/dashboard';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';

export const dashboardKeys = {
  all: ['dashboard'] as const,
  summary: () => [...dashboardKeys.all, 'summary'] as const,
};

/** The admin home in one call: open setup steps and the organisation's counts. */
export const getDashboard = (signal?: AbortSignal) => api.get<Dashboard>('/api/dashboard', { signal });

export const dashboardQuery = () =>
  queryOptions({
    queryKey: dashboardKeys.summary(),
    queryFn: ({ signal }) => getDashboard(signal),
    // Its steps and counts change on other pages and in the background (a domain verified by the
    // re-check), which invalidate nothing here: ask again each time the admin home opens.
    staleTime: 0,
  });

export function useDashboard() {
  return useQuery(dashboardQuery());
}
