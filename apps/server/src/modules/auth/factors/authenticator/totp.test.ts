import { describe, expect, it } from 'vitest';
import { matchingStep, newTotpSecret, otpauthUri } from './totp.ts';

// RFC 6238 appendix B (SHA-1): the secret "12345678901234567890", whose 8-digit codes end in
// the 6-digit codes every authenticator app shows.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('TOTP codes', () => {
  it('matches the RFC 6238 test vectors and says which time step a code belongs to', () => {
    expect(matchingStep(RFC_SECRET, '287082', 59_000)).toBe(1);
    expect(matchingStep(RFC_SECRET, '081804', 1_111_111_109_000)).toBe(37_037_036);
    expect(matchingStep(RFC_SECRET, '005924', 1_234_567_890_000)).toBe(41_152_263);
  });

  it('accepts the step before and after (clocks a little off), and nothing further', () => {
    // 287082 is the code of step 1 (30–59 s).
    expect(matchingStep(RFC_SECRET, '287082', 89_000)).toBe(1);
    expect(matchingStep(RFC_SECRET, '287082', 0)).toBe(1);
    expect(matchingStep(RFC_SECRET, '287082', 90_000)).toBeNull();
    expect(matchingStep(RFC_SECRET, '000000', 59_000)).toBeNull();
  });

  it('makes 160-bit secrets and an otpauth URI apps read', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const uri = new URL(otpauthUri(secret, { issuer: 'Atrium (Acme)', label: 'ada@acme.example' }));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({
      secret,
      issuer: 'Atrium (Acme)',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});
