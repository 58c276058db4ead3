import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findUnstorableText, hasUnstorableCharacter, labelText } from './text.ts';

describe('hasUnstorableCharacter', () => {
  it('finds NUL and unpaired surrogates, and lets whole pairs and other text through', () => {
    for (const bad of ['a\u0000b', '\ud800', 'x\udc00', '\udc00\ud800', 'end\ud83d']) {
      expect(hasUnstorableCharacter(bad), JSON.stringify(bad)).toBe(true);
    }
    for (const good of ['', 'Ada Lovelace', '😀', 'a\u0001b', 'Équipe 営業']) {
      expect(hasUnstorableCharacter(good), JSON.stringify(good)).toBe(false);
    }
  });
});

describe('findUnstorableText', () => {
  it('names the path of the first bad string or key, however deep', () => {
    expect(findUnstorableText({ a: 'ok', b: ['ok', { c: 'x\u0000' }] })).toBe('b.1.c');
    expect(findUnstorableText({ ['k\u0000']: 1 })).toBe('k\u0000');
    expect(findUnstorableText('\ud800')).toBe('');
    expect(findUnstorableText({ a: 1, b: null, c: ['fine'] })).toBeUndefined();
    let deep: unknown = 'a\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnstorableText(deep)).toBe(Array(100_000).fill('0').join('.'));
  });
});

describe('labelText', () => {
  const name = labelText(z.string().trim().min(1));
  it('refuses control, invisible and text-direction characters', () => {
    for (const bad of [
      'a\u0000',
      'a\u001f',
      'a\u200b',
      'a\u200f',
      'a\u202e',
      'a\u2066',
      'a\u2069',
      '\ud800',
    ]) {
      expect(name.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(name.parse('  Ada Lovelace ')).toBe('Ada Lovelace');
    expect(name.parse('Équipe 営業 فريق')).toBe('Équipe 営業 فريق');
  });
});
