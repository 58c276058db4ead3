import type { DeletionCheck } from '@atrium/contracts/domains';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { domainsKeys } from './keys.ts';

/** "Domain deletion check": whether it can go, and which users or rules stop it. */
export const fetchDeletionCheck = (id: string, signal?: AbortSignal) =>
  api.get<DeletionCheck>(`/api/domains/${encodeURIComponent(id)}/deletion-check`, signal ? { signal } : {});

export const deletionCheckQuery = (id: string) =>
  queryOptions({
    queryKey: domainsKeys.deletionCheck(id),
    queryFn: ({ signal }) => fetchDeletionCheck(id, signal),
    staleTime: 0,
  });

export const useDeletionCheck = (id: string | undefined) =>
  useQuery({ ...deletionCheckQuery(id ?? ''), enabled: id !== undefined });
