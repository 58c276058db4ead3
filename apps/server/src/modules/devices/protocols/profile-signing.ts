import { execFile } from 'node:child_process';
import type { Config } from '../../../config.ts';

/**
 * Signs a configuration profile as Apple devices verify it: CMS SignedData with the profile
 * inside (`openssl smime -sign -nodetach -outform der`), by the operator's certificate; the chain
 * after the certificate in the same PEM file goes along. Without a certificate the profile stays
 * as it is (unsigned: devices show it as "Unverified").
 */
export function signProfile(
  config: Pick<Config, 'deviceProfileSigning'>,
  plist: string,
): Promise<string | Buffer> {
  const signing = config.deviceProfileSigning;
  if (!signing) return Promise.resolve(plist);
  const args = ['smime', '-sign', '-signer', signing.cert, '-inkey', signing.key, '-certfile', signing.cert];
  return new Promise((resolve, reject) => {
    const child = execFile(
      'openssl',
      [...args, '-nodetach', '-binary', '-outform', 'der'],
      { encoding: 'buffer', maxBuffer: 4 * 1024 * 1024, timeout: 10_000 },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(`openssl could not sign the profile: ${stderr.toString().trim() || error.message}`),
          );
        else resolve(stdout);
      },
    );
    child.stdin?.end(plist);
  });
}
