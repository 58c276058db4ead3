import { Secret, TOTP } from 'otpauth';

/** The code an authenticator app shows `steps` time steps from now, from the key the page showed. */
export function totpCode(secret: string, steps = 0): string {
  const totp = new TOTP({
    secret: Secret.fromBase32(secret.replace(/\s/g, '')),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}
