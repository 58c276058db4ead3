import { activityFilterSchema, type ActivityFilter } from '@atrium/contracts/activity';
import { z } from 'zod';

/** What the filter form holds: whole days in the viewer's time zone, '' for "any". */
export interface FilterFormValues {
  actor: string;
  kind: string;
  from: string;
  to: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function localMidnight(day: string, plusDays = 0): string | undefined {
  const m = DAY.exec(day);
  if (!m) return undefined;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays).toISOString();
}

function localDay(iso: string | undefined, minusMs = 0): string {
  if (!iso) return '';
  const d = new Date(Date.parse(iso) - minusMs);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * The form's days become the API's instants: `from` is the start of its day and `to` the start
 * of the day after (the API's `to` is exclusive, the form's last day is included).
 */
export function toApiFilter(values: FilterFormValues): ActivityFilter {
  const filter: ActivityFilter = {};
  if (values.actor) filter.actor = values.actor;
  if (values.kind) filter.kind = values.kind;
  const from = values.from ? localMidnight(values.from) : undefined;
  const to = values.to ? localMidnight(values.to, 1) : undefined;
  if (from) filter.from = from;
  if (to) filter.to = to;
  return filter;
}

export function toFormValues(filter: ActivityFilter): FilterFormValues {
  return {
    actor: filter.actor ?? '',
    kind: filter.kind ?? '',
    from: localDay(filter.from),
    to: localDay(filter.to, 1),
  };
}

/** The form is checked by the contract's own filter schema, after turning days into instants. */
export const filterFormSchema = z
  .object({ actor: z.string(), kind: z.string(), from: z.string(), to: z.string() })
  .transform(toApiFilter)
  .pipe(activityFilterSchema);

/** The filter in the page's address, so a filtered view can be bookmarked and shared. */
export function filterFromSearch(search: URLSearchParams): ActivityFilter {
  const raw: Record<string, string> = {};
  for (const key of ['actor', 'kind', 'from', 'to'] as const) {
    const value = search.get(key);
    if (value) raw[key] = value;
  }
  return raw;
}

export function searchFromFilter(filter: ActivityFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (value) params.set(key, String(value));
  return params;
}
