import { describe, expect, it } from 'vitest';
import { SIGN_IN_ERRORS, signInErrorMessage } from './sign-in-values.ts';

describe('signInErrorMessage', () => {
  it('gives the message of a known code', () => {
    expect(signInErrorMessage('account_unavailable')).toBe('This account cannot sign in.');
    expect(signInErrorMessage('cancelled')).toBe(SIGN_IN_ERRORS.cancelled);
  });

  it('never shows words from the link itself', () => {
    for (const code of ['Call 0800 to unlock your account', 'toString', '__proto__', '', null]) {
      expect(signInErrorMessage(code)).toBe(SIGN_IN_ERRORS.incomplete);
    }
  });
});
