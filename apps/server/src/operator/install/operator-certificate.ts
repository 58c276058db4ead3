import { spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { covers } from './mail-tls-files.ts';
import { secretFileProblem, uidOfUser } from './secret-files.ts';

/**
 * Why install must not use the operator's --tls-cert/--tls-key, in one line with the fix, or
 * undefined. `asCaddy` (on a host): Caddy reads both as user caddy, so each file and every
 * directory on its path must let that user through (Debian's /etc/ssl/private does not).
 */
export function operatorCertificateProblem(
  tls: { cert: string; key: string },
  options: { asCaddy: boolean; now?: Date },
): string | undefined {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(readFileSync(tls.cert));
  } catch (error) {
    return `--tls-cert ${tls.cert}: not a PEM certificate (${reason(error)})`;
  }
  if (new Date(certificate.validTo) <= (options.now ?? new Date())) {
    return `--tls-cert ${tls.cert}: expired on ${new Date(certificate.validTo).toISOString().slice(0, 10)} — renew it`;
  }
  const caddyUid = options.asCaddy ? uidOfUser('caddy') : undefined;
  const secret = secretFileProblem(
    '--tls-key',
    tls.key,
    caddyUid === undefined ? undefined : { name: 'caddy', uid: caddyUid },
  );
  if (secret) return secret;
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(tls.key));
  } catch (error) {
    return `--tls-key ${tls.key}: not a PEM private key (${reason(error)})`;
  }
  if (!certificate.checkPrivateKey(key)) {
    return `--tls-key ${tls.key}: not the key of --tls-cert ${tls.cert} — give the key the certificate was issued for`;
  }
  if (caddyUid !== undefined) {
    for (const [option, file] of [
      ['--tls-cert', tls.cert],
      ['--tls-key', tls.key],
    ] as const) {
      const blocked = unreachableFor('caddy', file);
      if (blocked) {
        return `${option} ${file}: user caddy cannot ${blocked === file ? 'read it' : `pass through ${blocked}`} — move it where caddy can (e.g. /etc/caddy/tls/, owner caddy), or: adduser caddy $(stat -c %G ${blocked})`;
      }
    }
  }
  return undefined;
}

/** Which of `names` the certificate is valid for, for install's report. */
export function namesCovered(certFile: string, names: string[]): string[] {
  const certificate = new X509Certificate(readFileSync(certFile));
  return names.filter((name) => covers(certificate, name));
}

/**
 * The first directory on `file`'s path that `user` cannot pass through, `file` itself when it
 * cannot read it, or undefined. One shell run as that user (its groups too), as the daemon would.
 */
function unreachableFor(user: string, file: string): string | undefined {
  const dirs: string[] = [];
  for (let d = path.dirname(file); ; d = path.dirname(d)) {
    dirs.unshift(d);
    if (d === path.dirname(d)) break;
  }
  const script = 'for d in "$@"; do test -x "$d" || { echo "$d"; exit 1; }; done';
  const run = spawnSync(
    'setpriv',
    [
      `--reuid=${user}`,
      `--regid=${user}`,
      '--init-groups',
      'sh',
      '-c',
      `${script}; test -r '${file.replace(/'/g, "'\\''")}' || echo '${file.replace(/'/g, "'\\''")}'`,
      'sh',
      ...dirs,
    ],
    { encoding: 'utf8' },
  );
  const blocked = run.stdout.trim();
  return blocked || undefined;
}

const reason = (error: unknown) =>
  (error as NodeJS.ErrnoException).code ?? (error as Error).message.split('\n')[0] ?? String(error);
