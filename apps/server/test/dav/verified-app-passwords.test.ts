import { describe, expect, it } from 'vitest';
import { VerifiedAppPasswords } from '../../src/modules/dav/verified-app-passwords.ts';

describe('app passwords verified a moment ago', () => {
  it('keys by address and password as users type them, dashes and case aside', () => {
    const key = VerifiedAppPasswords.key('Ada@Example.com', 'abcde-fghij-klmno-pqrst');
    expect(VerifiedAppPasswords.key('ada@example.com', 'ABCDEFGHIJKLMNOPQRST')).toBe(key);
    expect(VerifiedAppPasswords.key('ada@example.com', 'abcde-fghij-klmno-pqrsu')).not.toBe(key);
    expect(VerifiedAppPasswords.key('bob@example.com', 'abcde-fghij-klmno-pqrst')).not.toBe(key);
  });

  it('forgets a match after its time, when told, and the oldest past its bound', () => {
    const verified = new VerifiedAppPasswords(1000, 2);
    verified.set('a', 'id-a', 0);
    expect(verified.get('a', 999)).toBe('id-a');
    expect(verified.get('a', 1000)).toBeUndefined();
    verified.set('a', 'id-a', 0);
    verified.forget('a');
    expect(verified.get('a', 1)).toBeUndefined();
    verified.set('a', 'id-a', 0);
    verified.set('b', 'id-b', 0);
    verified.set('c', 'id-c', 0);
    expect([verified.get('a', 1), verified.get('b', 1), verified.get('c', 1)]).toEqual([
      undefined,
      'id-b',
      'id-c',
    ]);
  });
});
