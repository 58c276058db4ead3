import { describe, expect, it } from 'vitest';
import { delimiterOf, looksLikeJson } from './csv-formats.ts';
import { readMailMigrationCsv } from './mail-migration-csv.ts';

describe('the delimiter of a user file', () => {
  it('is a comma or a semicolon, whichever the header has more of outside quotes', () => {
    expect(delimiterOf('First name,Last name,E-mail')).toBe(',');
    expect(delimiterOf('First name;Last name;E-mail')).toBe(';');
    expect(delimiterOf('"Name; full",E-mail')).toBe(',');
  });

  it('is a tab when the header has tabs and no comma (Excel’s Unicode text)', () => {
    expect(delimiterOf('First name\tLast name\tE-mail')).toBe('\t');
    expect(delimiterOf('First name\tLast name\tGroups (a;b)')).toBe('\t');
    expect(delimiterOf('"First\tname",Last name,E-mail')).toBe(',');
    expect(delimiterOf('First name,Last name\tE-mail')).toBe(',');
  });
});

describe('a JSON body where a CSV file should be', () => {
  it('is told apart from a header row', () => {
    expect(looksLikeJson('{"users":[]}')).toBe(true);
    expect(looksLikeJson('\uFEFF\n  [{"email":"ann@acme.test"}]')).toBe(true);
    expect(looksLikeJson('[1, 2]')).toBe(true);
    expect(looksLikeJson('First name,Last name,E-mail')).toBe(false);
    expect(looksLikeJson('"First name","Last name"')).toBe(false);
    expect(looksLikeJson('[Team] name,E-mail')).toBe(false);
  });

  it('is refused by the mail migration as "not a CSV file", not as a quoting problem', () => {
    expect(() => readMailMigrationCsv('[{"email":"ann@acme.test","host":"imap.old.test"}]')).toThrow(
      /^This is not a CSV file: it holds JSON\. /,
    );
  });
});
