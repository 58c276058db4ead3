import type { SearchQuery } from '@atrium/contracts/search';

/** One query-key factory for the header search. */
export const searchKeys = {
  all: ['search'] as const,
  results: (query: SearchQuery) => [...searchKeys.all, 'results', query] as const,
};
