import type { DnsMapping } from '@atrium/contracts/domains';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { domainsKeys } from './keys.ts';

/** "DNS mapping" and "DNS retrieval": the records to publish, against what DNS holds now. */
export const fetchDnsMapping = (id: string, signal?: AbortSignal) =>
  api.get<DnsMapping>(`/api/domains/${encodeURIComponent(id)}/dns-records`, signal ? { signal } : {});

export const dnsMappingQuery = (id: string) =>
  queryOptions({
    queryKey: domainsKeys.mapping(id),
    queryFn: ({ signal }) => fetchDnsMapping(id, signal),
    // What DNS holds is live data: ask again whenever the view opens.
    staleTime: 0,
  });

export const useDnsMapping = (id: string, enabled: boolean) => useQuery({ ...dnsMappingQuery(id), enabled });
