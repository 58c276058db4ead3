import type { InstalledApp } from '@atrium/contracts/apps';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appsKeys } from './keys.ts';

/** "Selected apps": what the organisation installed. */
export const getInstalledApps = async (signal?: AbortSignal) =>
  (await api.get<{ apps: InstalledApp[] }>('/api/apps', { signal })).apps;

export const installedAppsQuery = () =>
  queryOptions({ queryKey: appsKeys.installed(), queryFn: ({ signal }) => getInstalledApps(signal) });

export function useInstalledApps() {
  return useQuery(installedAppsQuery());
}
