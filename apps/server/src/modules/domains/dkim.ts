import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { createPrivateKey } from 'node:crypto';
import { decryptSecret, deriveKey, encryptSecret } from '../../lib/crypto.ts';
import type { DomainRow } from './domains.repository.ts';

const generateKeyPairAsync = promisify(generateKeyPair);

export interface DkimKey {
  /** PKCS#8 PEM sealed with the 'dkim' key derived from ATRIUM_SECRET. */
  privateKeyEnc: string;
  /** Base64 SPKI DER, the p= tag of the published record. */
  publicKey: string;
}

/** A fresh RSA-2048 key pair for one domain (generated off the event loop). */
export async function generateDkimKey(secret: string): Promise<DkimKey> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return {
    privateKeyEnc: encryptSecret(deriveKey(secret, 'dkim'), privateKey),
    publicKey: publicKey.toString('base64'),
  };
}

/** The exact text published at `<selector>._domainkey.<domain>`. */
export const dkimRecordValue = (publicKey: string) => `v=DKIM1; k=rsa; p=${publicKey}`;

/** A key whose public half is published at `<selector>._domainkey.<domain>`. */
export interface PublishedDkimKey {
  selector: string;
  publicKey: string;
}

/**
 * Every key a domain publishes: the current one (it signs), and during a rotation the next one
 * (published before it signs, so resolvers have it when the switch comes) or the previous one
 * (still published after the switch, so mail signed with it and still in transit verifies).
 */
export function publishedDkimKeys(
  row: Pick<
    DomainRow,
    | 'dkim_selector'
    | 'dkim_public_key'
    | 'dkim_next_selector'
    | 'dkim_next_public_key'
    | 'dkim_previous_selector'
    | 'dkim_previous_public_key'
  >,
): PublishedDkimKey[] {
  const keys: PublishedDkimKey[] = [{ selector: row.dkim_selector, publicKey: row.dkim_public_key }];
  if (row.dkim_next_selector && row.dkim_next_public_key) {
    keys.push({ selector: row.dkim_next_selector, publicKey: row.dkim_next_public_key });
  }
  if (row.dkim_previous_selector && row.dkim_previous_public_key) {
    keys.push({ selector: row.dkim_previous_selector, publicKey: row.dkim_previous_public_key });
  }
  return keys;
}

/** A sealed private key opened for the signer: the PKCS#8 PEM OpenDKIM reads from a key file. */
export function openDkimPrivateKey(secret: string, privateKeyEnc: string): string {
  const pem = decryptSecret(deriveKey(secret, 'dkim'), privateKeyEnc);
  // A key that does not parse would make OpenDKIM refuse every message of the domain.
  createPrivateKey(pem);
  return pem;
}
