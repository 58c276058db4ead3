import { describe, expect, it } from 'vitest';
import { searchPages } from './search-pages.ts';

const titles = (query: string) => searchPages(query).map((p) => p.title);

describe('searchPages', () => {
  it('finds a page by its title, ignoring case', () => {
    expect(titles('DOMA')[0]).toBe('Domain');
    expect(titles('organization')[0]).toBe('organization');
  });

  it('finds pages by the words they hold, every word of the query', () => {
    expect(titles('profile')).toEqual(['Profile', 'organization']);
    expect(titles('add user')).toEqual(['Add a user']);
    expect(titles('add a user')).toEqual(['Add a user']);
    expect(titles('password')).toEqual(expect.arrayContaining(['Profile', 'Users', 'Add a user']));
    expect(titles('sign-in policy')).toEqual(['organization']);
  });

  it('finds "Export everything" (Data Migration\'s takeout card) for "export", before Users', () => {
    expect(titles('export')).toEqual(['Export everything', 'Users']);
    expect(titles('takeout')).toEqual(['Export everything']);
    expect(searchPages('export')[0]!.url).toBe('/data-migration#export-everything');
  });

  it('finds nothing for text no page holds, or for nothing', () => {
    expect(titles('zebra')).toEqual([]);
    expect(titles('  ')).toEqual([]);
  });
});
