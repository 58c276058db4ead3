import type { AppGroup } from '@atrium/contracts/apps';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appsKeys } from './keys.ts';

/** The organisation's groups an app can be opened to. */
export const getGroupOptions = async (signal?: AbortSignal) =>
  (await api.get<{ groups: AppGroup[] }>('/api/apps/group-options', { signal })).groups;

export const groupOptionsQuery = () =>
  queryOptions({ queryKey: appsKeys.groupOptions(), queryFn: ({ signal }) => getGroupOptions(signal) });

export function useGroupOptions() {
  return useQuery(groupOptionsQuery());
}
