import { describe, expect, it } from 'vitest';
import { delimiterOf } from './csv-formats.ts';

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
