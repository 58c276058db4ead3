import { describe, expect, it } from 'vitest';
import { hashPassword, passwordProblem, verifyAgainstDummy, verifyPassword } from './passwords.ts';

describe('password rules', () => {
  it('refuses short, overlong and common passwords, and nothing else', () => {
    expect(passwordProblem('short1!')).toBe('Use at least 8 characters');
    expect(passwordProblem('x'.repeat(257))).toBe('Use at most 256 characters');
    expect(passwordProblem('password')).toMatch(/too common/);
    expect(passwordProblem('Qwerty123')).toMatch(/too common/); // compared ignoring case
    expect(passwordProblem('violet-harbour-41')).toBeNull();
    expect(passwordProblem('12345678')).toMatch(/too common/);
    expect(passwordProblem('correct horse battery staple')).toBeNull();
    expect(passwordProblem('alllowercaseletters')).toBeNull(); // no composition rules
  });

  it('counts characters, not bytes', () => {
    expect(passwordProblem('ééééééé')).toBe('Use at least 8 characters');
    expect(passwordProblem('éééééééé')).toBeNull();
  });
});

describe('argon2id hashing', () => {
  it('verifies the right password and refuses others', async () => {
    const h = await hashPassword('a long enough secret');
    expect(h).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(h, 'a long enough secret')).toBe(true);
    expect(await verifyPassword(h, 'a long enough secreT')).toBe(false);
    expect(await verifyPassword('not-a-hash', 'x')).toBe(false);
    expect(await verifyAgainstDummy('anything')).toBe(false);
  });
});
