import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * A self-signed certificate and its key, made with openssl as an operator makes one
 * (`openssl req -x509 … -days N`): `<dir>/<name>.crt` and `<dir>/<name>.key`.
 */
export function makeCertificate(
  dir: string,
  name: string,
  o: { names: string[]; days: number },
): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  const run = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      String(o.days),
      '-subj',
      `/CN=${o.names[0]}`,
      '-addext',
      `subjectAltName=${o.names.map((n) => `DNS:${n}`).join(',')}`,
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`openssl: ${run.stderr}`);
  return { cert, key };
}
