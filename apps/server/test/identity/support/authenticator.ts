import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import type { TestSession } from '../../support/fixtures.ts';
import type { TestApp } from '../../support/test-app.ts';

/**
 * The authenticator app of a test: the code for the time step `steps` away from now, computed
 * from the secret the enrolment showed (SHA-1, 6 digits, 30 s, as every app does).
 */
export function totpCode(secret: string, steps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}

/**
 * Sets up an authenticator app on /profile through the API and returns its secret and the
 * recovery codes. The confirming code is the current step's, so a sign-in right after uses the
 * next step's code (`totpCode(secret, 1)`).
 */
export async function enrolAuthenticator(
  server: TestApp,
  session: TestSession,
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await server.app.inject({
    method: 'POST',
    url: '/api/profile/authenticator',
    headers: session.headers,
  });
  expect(started.statusCode, started.body).toBe(200);
  const { secret } = started.json() as { secret: string };
  const confirmed = await server.app.inject({
    method: 'POST',
    url: '/api/profile/authenticator/confirm',
    headers: session.headers,
    payload: { code: totpCode(secret) },
  });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return { secret, recoveryCodes: (confirmed.json() as { recoveryCodes: string[] }).recoveryCodes };
}
