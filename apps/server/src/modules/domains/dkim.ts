import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { deriveKey, encryptSecret } from '../../lib/crypto.ts';

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
