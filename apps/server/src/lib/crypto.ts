import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  randomBytes,
  randomInt,
  type KeyObject,
} from 'node:crypto';

const derived = new Map<string, KeyObject>();

/**
 * A purpose-bound 32-byte key derived from the operator's secret, derived once per process. A
 * KeyObject rather than bytes: Node 24 checks a Buffer key of createHmac or createCipheriv by
 * catching an exception, about 10 µs a call, five times the HMAC itself (issue 18).
 */
export function deriveKey(secret: string, purpose: string): KeyObject {
  const id = `${purpose}\0${secret}`;
  let key = derived.get(id);
  if (!key) {
    key = createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'atrium', purpose, 32)));
    derived.set(id, key);
  }
  return key;
}

/** AES-256-GCM; output `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encryptSecret(key: KeyObject, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function decryptSecret(key: KeyObject, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('Unrecognised sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/** An unguessable token for cookies and links (256 bits). */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/** Stored instead of bearer tokens, so a database leak does not leak live sessions. */
export const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** A 6-digit e-mail code, uniformly distributed. */
export const randomDigits = (length = 6) =>
  Array.from({ length }, () => randomInt(0, 10).toString()).join('');

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** Lowercase base-32 (RFC 4648 alphabet), e.g. for DNS verification tokens. */
export function randomBase32(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += BASE32[bytes[i]! & 31];
  return out;
}
