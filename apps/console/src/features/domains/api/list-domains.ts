import type { DomainList } from '@atrium/contracts/domains';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { domainsKeys } from './keys.ts';

/** "Domain view": every domain of the organisation (at most the operator's limit, so no paging). */
export const fetchDomains = (signal?: AbortSignal) =>
  api.get<DomainList>('/api/domains', signal ? { signal } : {});

export const domainsQuery = () =>
  queryOptions({ queryKey: domainsKeys.list(), queryFn: ({ signal }) => fetchDomains(signal) });

export const useDomains = () => useQuery(domainsQuery());
