import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';

/**
 * Authenticator-app codes (RFC 6238) with the parameters every app understands: SHA-1, six
 * digits, 30-second steps. A code of the previous or next step is accepted too, for clocks a
 * little off; which step matched is returned, so a used step can be refused afterwards.
 */
export const TOTP_PERIOD_SECONDS = 30;
const DIGITS = 6;
const WINDOW = 1;

/** A new random secret (160 bits, RFC 4226's recommended length), in base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secret: string, account?: { issuer: string; label: string }): TOTP {
  return new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: TOTP_PERIOD_SECONDS,
    ...account,
  });
}

/** The otpauth:// URI the QR code holds (the app shows `issuer` and `label` beside the codes). */
export function otpauthUri(secret: string, account: { issuer: string; label: string }): string {
  return totpOf(secret, account).toString();
}

/**
 * The QR code as an SVG data URL, made on the server: the page shows it as an <img>, which the
 * CSP's img-src allows for data: URLs, and no script builds it in the browser.
 */
export function qrCodeDataUrl(text: string): string {
  const svg = renderSVG(text, { ecc: 'M', border: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** The time step `code` belongs to, within one step either side of `at`; null when it matches none. */
export function matchingStep(secret: string, code: string, at = Date.now()): number | null {
  const totp = totpOf(secret);
  const delta = totp.validate({ token: code, timestamp: at, window: WINDOW });
  if (delta === null) return null;
  return totp.counter({ timestamp: at }) + delta;
}
