import type { DomainResponse } from '@atrium/contracts/domains';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { domainsKeys } from './keys.ts';

/** One domain with its TXT record ("domain: TXT record"). */
export const fetchDomain = (id: string, signal?: AbortSignal) =>
  api.get<DomainResponse>(`/api/domains/${encodeURIComponent(id)}`, signal ? { signal } : {});

export const domainQuery = (id: string) =>
  queryOptions({ queryKey: domainsKeys.detail(id), queryFn: ({ signal }) => fetchDomain(id, signal) });

export const useDomain = (id: string) => useQuery(domainQuery(id));
