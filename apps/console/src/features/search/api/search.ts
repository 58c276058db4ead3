import type { SearchQuery, SearchResults } from '@atrium/contracts/search';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client.ts';
import { searchKeys } from './keys.ts';

/** "search": the organisation's users, groups, domains and apps whose name starts with `q`. */
export const searchOrganization = (query: SearchQuery, signal?: AbortSignal) =>
  api.get<SearchResults>('/api/search', { query: { ...query }, signal });

export const searchResultsQuery = (query: SearchQuery) =>
  queryOptions({
    queryKey: searchKeys.results(query),
    queryFn: ({ signal }) => searchOrganization(query, signal),
    // The open list keeps the last answer while the next one loads, instead of flickering empty.
    placeholderData: keepPreviousData,
    // A user added a moment ago should be findable; the answer is cheap.
    staleTime: 10_000,
  });

/** Searches once `q` (already debounced by the caller) is not blank. */
export function useSearchResults(q: string) {
  const trimmed = q.trim();
  return useQuery({ ...searchResultsQuery({ q: trimmed }), enabled: trimmed.length > 0 });
}
