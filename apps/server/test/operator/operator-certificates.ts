import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { uidOf } from '../support/daemons.ts';
import { ROOTS } from './installed-host.ts';

/**
 * An operator's own CA and a certificate it issued for some of the host's names, as a company
 * with a private CA (or a purchased wildcard) hands install: the key owned by caddy, 0600, in a
 * directory caddy can reach, as install asks.
 */
export class OperatorCertificates {
  readonly dir: string;
  readonly cert: string;
  readonly key: string;
  private readonly caCert: string;

  constructor(subjectAltNames: string[]) {
    this.dir = mkdtempSync(path.join(ROOTS, 'certs-'));
    chmodSync(this.dir, 0o755);
    this.caCert = path.join(this.dir, 'ca.crt');
    this.cert = path.join(this.dir, 'host.crt');
    this.key = path.join(this.dir, 'host.key');
    const caKey = path.join(this.dir, 'ca.key');
    openssl(['-subj', '/CN=Operator Test CA', '-keyout', caKey, '-out', this.caCert]);
    openssl([
      ...['-CA', this.caCert, '-CAkey', caKey, '-subj', `/CN=${subjectAltNames[0]!.replace(/^\w+:/, '')}`],
      ...['-addext', `subjectAltName=${subjectAltNames.join(',')}`, '-keyout', this.key, '-out', this.cert],
    ]);
    const caddy = uidOf('caddy');
    chownSync(this.key, caddy.uid, caddy.gid);
    chmodSync(this.key, 0o600);
    chmodSync(this.cert, 0o644);
  }

  get ca(): string {
    return readFileSync(this.caCert, 'utf8');
  }

  certificate(): X509Certificate {
    return new X509Certificate(readFileSync(this.cert));
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function openssl(args: string[]): void {
  const run = spawnSync('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '30'],
    ...args,
  ]);
  if (run.status !== 0) throw new Error(`openssl: ${run.stderr.toString()}`);
}
