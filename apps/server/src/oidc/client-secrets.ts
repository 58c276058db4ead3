import type { Config } from '../config.ts';
import { decryptSecret, deriveKey, encryptSecret, randomToken } from '../lib/crypto.ts';

// The provider needs the plain secret to check client_secret_basic, so it is encrypted, not hashed.
const PURPOSE = 'oidc-client-secrets';

/** A new client secret (256 bits), shown once to whoever registers the client. */
export const newClientSecret = () => randomToken(32);

/** What goes into `oidc_clients.client_secret_enc` (used by the apps area when installing). */
export function sealClientSecret(config: Config, secret: string): string {
  return encryptSecret(deriveKey(config.secret, PURPOSE), secret);
}

export function openClientSecret(config: Config, sealed: string): string {
  return decryptSecret(deriveKey(config.secret, PURPOSE), sealed);
}
