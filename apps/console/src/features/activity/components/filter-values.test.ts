import { describe, expect, it } from 'vitest';
import {
  filterFormSchema,
  filterFromSearch,
  searchFromFilter,
  toApiFilter,
  toFormValues,
} from './filter-values.ts';

const localMidnight = (y: number, m: number, d: number) => new Date(y, m - 1, d).toISOString();

describe('activity filter form', () => {
  it('turns whole local days into the API’s instants, the last day included', () => {
    expect(toApiFilter({ actor: '', kind: 'domain', from: '2026-03-01', to: '2026-03-31' })).toEqual({
      kind: 'domain',
      from: localMidnight(2026, 3, 1),
      to: localMidnight(2026, 4, 1),
    });
    expect(toApiFilter({ actor: '', kind: '', from: '', to: '' })).toEqual({});
  });

  it('shows the API’s instants as the same days again', () => {
    const filter = { actor: 'system', from: localMidnight(2026, 3, 1), to: localMidnight(2026, 4, 1) };
    expect(toFormValues(filter)).toEqual({ actor: 'system', kind: '', from: '2026-03-01', to: '2026-03-31' });
  });

  it('accepts a one-day range and refuses an end before the start, on the "to" field', () => {
    expect(
      filterFormSchema.safeParse({ actor: '', kind: '', from: '2026-03-01', to: '2026-03-01' }).success,
    ).toBe(true);
    const result = filterFormSchema.safeParse({ actor: '', kind: '', from: '2026-03-02', to: '2026-03-01' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['to']);
  });

  it('keeps the filter in the address', () => {
    const search = searchFromFilter({ kind: 'user', actor: 'system' });
    expect(search.toString()).toBe('kind=user&actor=system');
    expect(filterFromSearch(new URLSearchParams('kind=user&page=2&to='))).toEqual({ kind: 'user' });
  });
});
