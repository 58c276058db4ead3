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
  queryOptions({ queryKey: dashboardKeys.summary(), queryFn: ({ signal }) => getDashboard(signal) });

export function useDashboard() {
  return useQuery(dashboardQuery());
}
