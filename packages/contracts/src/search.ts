import { z } from 'zod';
import { labelText } from './text.ts';

/** The admin header's search (issue 13): users, groups, domains and apps of the caller's organisation. */

export const SEARCH_DEFAULT_LIMIT = 5;
export const SEARCH_MAX_LIMIT = 10;

export const searchQuerySchema = z.object({
  q: labelText(
    z.string().trim().min(1, 'Enter something to search for').max(100, 'Use at most 100 characters'),
  ),
  /** Results per kind. */
  limit: z.coerce
    .number()
    .int('Use a whole number')
    .min(1, 'Use at least 1')
    .max(SEARCH_MAX_LIMIT, `Use at most ${SEARCH_MAX_LIMIT}`)
    .default(SEARCH_DEFAULT_LIMIT),
});
/** What a client sends (`limit` arrives as query-string text, hence the coercion above). */
export type SearchQuery = Pick<z.input<typeof searchQuerySchema>, 'q'> & { limit?: number };

/** One thing found: what to show and the id to open it by; never anything secret. */
export const searchHitSchema = z.object({
  id: z.uuid(),
  label: z.string(),
  /** A second line: a user's e-mail, a domain's state, an app's address. */
  secondary: z.string().nullable(),
});
export type SearchHit = z.infer<typeof searchHitSchema>;

export const searchResultsSchema = z.object({
  users: z.array(searchHitSchema),
  groups: z.array(searchHitSchema),
  domains: z.array(searchHitSchema),
  apps: z.array(searchHitSchema),
});
export type SearchResults = z.infer<typeof searchResultsSchema>;
export type SearchKind = keyof SearchResults;
