import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorCertificateProblem } from '../../src/operator/install/operator-certificate.ts';
import { secretFileProblem, uidOfUser } from '../../src/operator/install/secret-files.ts';
import { atriumCli, InstalledHost } from './installed-host.ts';

// Issue 38: install hands --tls-key to Caddy, Postfix and Dovecot; it refuses a key that others on
// the host can read, naming the file and the fix.

let host: InstalledHost;
const dir = mkdtempSync(path.join(tmpdir(), 'atrium-keys-'));
const cert = path.join(dir, 'tls.crt');
const key = path.join(dir, 'tls.key');

beforeAll(async () => {
  host = await InstalledHost.create();
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=atrium.test',
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr.toString()}`);
});

afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('install --tls-key', () => {
  const install = () => atriumCli([...host.installArgs(['--tls-cert', cert, '--tls-key', key]), '--dry-run']);

  it('refuses a key its group or everyone may read, in one line naming the file and chmod 600', () => {
    chmodSync(key, 0o644);
    const world = install();
    expect(world.status, world.output).toBe(1);
    expect(world.stderr.trim()).toBe(
      `--tls-key ${key}: a private key that everyone on this host can read (mode 0644) — chmod 600 ${key}`,
    );
    chmodSync(key, 0o640);
    const group = install();
    expect(group.status, group.output).toBe(1);
    expect(group.stderr.trim()).toBe(
      `--tls-key ${key}: a private key that its group can read (mode 0640) — chmod 600 ${key}`,
    );
  });

  it('takes the key once it is 0600', () => {
    chmodSync(key, 0o600);
    const run = install();
    expect(run.status, run.output).toBe(0);
    expect(run.stdout).toContain(`would create ${host.layout.caddyfile}`);
  });

  it('on a host, wants the key to be caddy’s, which reads it, and says so', () => {
    const caddy = uidOfUser('caddy');
    expect(caddy, 'Debian’s caddy package makes the user').toBeDefined();
    const reader = { name: 'caddy', uid: caddy! };
    const own = path.join(dir, 'own.key');
    writeFileSync(own, 'key', { mode: 0o600 });
    expect(secretFileProblem('--tls-key', own, reader)).toBe(
      `--tls-key ${own}: Caddy reads it as user caddy, who does not own it — chown caddy ${own}`,
    );
    chmodSync(own, 0o644);
    expect(secretFileProblem('--tls-key', own, reader)).toBe(
      `--tls-key ${own}: a private key that everyone on this host can read (mode 0644) — chmod 600 ${own} && chown caddy ${own}`,
    );
    chmodSync(own, 0o600);
    chownSync(own, caddy!, 0);
    expect(secretFileProblem('--tls-key', own, reader)).toBeUndefined();
    expect(secretFileProblem('--tls-key', path.join(dir, 'missing.key'))).toBe(
      `--tls-key ${path.join(dir, 'missing.key')}: cannot read it (ENOENT)`,
    );
  });

  it('refuses a key that is not the certificate’s, and on a host a file user caddy cannot reach', () => {
    const other = path.join(dir, 'other.key');
    const made = spawnSync('openssl', [
      'genpkey',
      '-algorithm',
      'EC',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-out',
      other,
    ]);
    expect(made.status, made.stderr.toString()).toBe(0);
    chmodSync(other, 0o600);
    expect(operatorCertificateProblem({ cert, key: other }, { asCaddy: false })).toBe(
      `--tls-key ${other}: not the key of --tls-cert ${cert} — give the key the certificate was issued for`,
    );
    // caddy owns the key, but the directory holding it lets only root through (like /etc/ssl/private).
    const caddy = uidOfUser('caddy')!;
    chmodSync(key, 0o600);
    chownSync(key, caddy, 0);
    chmodSync(dir, 0o700);
    try {
      expect(operatorCertificateProblem({ cert, key }, { asCaddy: true })).toMatch(
        new RegExp(`^--tls-cert ${cert}: user caddy cannot pass through ${dir} — `),
      );
      chmodSync(dir, 0o755);
      expect(operatorCertificateProblem({ cert, key }, { asCaddy: true })).toBeUndefined();
    } finally {
      chmodSync(dir, 0o755);
      chownSync(key, 0, 0);
    }
  });
});
