import type { AppTemplate } from '@atrium/contracts/apps';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { appsKeys } from './keys.ts';

/** "Available apps": the catalog, with the organisation's site URL filled in. */
export const getCatalog = async (signal?: AbortSignal) =>
  (await api.get<{ templates: AppTemplate[] }>('/api/apps/catalog', { signal })).templates;

export const catalogQuery = () =>
  queryOptions({
    queryKey: appsKeys.catalog(),
    queryFn: ({ signal }) => getCatalog(signal),
    staleTime: 5 * 60_000,
  });

export function useCatalog() {
  return useQuery(catalogQuery());
}
