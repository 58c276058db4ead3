import { describe, expect, it } from 'vitest';
import { CookieSigner } from './cookie-signer.ts';

describe('the provider cookie signer', () => {
  // Made with keygrip 1.1.0, as oidc-provider signed its cookies before: they stay valid.
  const KEYGRIP_SIGNATURE = 'N-ryhyadyVLNW7kxoKqBVV72M3g';

  it('signs as keygrip does', () => {
    expect(new CookieSigner(['cookie-key-one']).sign('_session=abc123')).toBe(KEYGRIP_SIGNATURE);
  });

  it('tells which key signed a cookie, and refuses any other signature', () => {
    const rotated = new CookieSigner(['cookie-key-two', 'cookie-key-one']);
    expect(rotated.index('_session=abc123', KEYGRIP_SIGNATURE)).toBe(1);
    expect(rotated.verify('_session=abc123', KEYGRIP_SIGNATURE)).toBe(true);
    expect(rotated.index('_session=abc124', KEYGRIP_SIGNATURE)).toBe(-1);
    expect(rotated.index('_session=abc123', KEYGRIP_SIGNATURE.slice(0, -1))).toBe(-1);
    expect(rotated.index('_session=abc123', `${KEYGRIP_SIGNATURE.slice(0, -1)}h`)).toBe(-1);
    expect(rotated.verify('_session=abc123', '')).toBe(false);
  });
});
