import type { AppDetail } from '@atrium/contracts/apps';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appsKeys } from './keys.ts';

export const getAppDetail = async (appId: string, signal?: AbortSignal) =>
  (await api.get<{ app: AppDetail }>(`/api/apps/${encodeURIComponent(appId)}`, { signal })).app;

export const appDetailQuery = (appId: string) =>
  queryOptions({ queryKey: appsKeys.detail(appId), queryFn: ({ signal }) => getAppDetail(appId, signal) });

export function useAppDetail(appId: string) {
  return useQuery(appDetailQuery(appId));
}
