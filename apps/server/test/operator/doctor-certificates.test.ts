import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caddyChecks } from '../../src/operator/doctor/caddy-checks.ts';
import { certificateChecks } from '../../src/operator/doctor/certificate-checks.ts';
import { formatOutcome, runChecks } from '../../src/operator/doctor/check.ts';
import { cronCheck } from '../../src/operator/doctor/cron-checks.ts';
import { tlsSyncCommand } from '../../src/operator/doctor/mail-certificate-checks.ts';
import { hostLayout } from '../../src/operator/host-layout.ts';
import { uidOf } from '../support/daemons.ts';
import { makeCertificate } from './test-certificates.ts';

const gidOf = (group: string) =>
  Number(spawnSync('getent', ['group', group], { encoding: 'utf8' }).stdout.split(':')[2]);

/**
 * doctor's lines for a public name's certificate about to expire, for cron where PID 1 is not
 * systemd, and the certificate copy's fix as install's cron line gives it.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'atrium-doctor-certificates-'));
let server: Server;
let port = 0;

const lines = async (checks: Parameters<typeof runChecks>[0]) =>
  (await runChecks(checks)).map((outcome) => formatOutcome(outcome));

beforeAll(async () => {
  // What Caddy would serve for a name whose renewal is stuck: a certificate valid 5 more days.
  const soon = makeCertificate(dir, 'soon', { names: ['localhost'], days: 5 });
  server = createServer({ cert: readFileSync(soon.cert), key: readFileSync(soon.key) }, (socket) =>
    socket.end(),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('doctor on certificates and cron', () => {
  it('fails a public name whose certificate expires in 5 days, with what renews it', async () => {
    const [line] = await lines(
      certificateChecks(
        [
          {
            host: 'localhost',
            port,
            protocol: 'https',
            renewedBy: 'Caddy renews it: tail -n 50 /var/log/caddy/caddy.log',
          },
        ],
        { ca: readFileSync(path.join(dir, 'soon.crt'), 'utf8') },
      ),
    );
    expect(line).toMatch(
      new RegExp(
        `^✗ Certificate of localhost:${port}: valid for 4 more days \\(until \\d{4}-\\d{2}-\\d{2}\\) — fix: renew it \\(Caddy renews it: tail -n 50 /var/log/caddy/caddy\\.log\\)$`,
      ),
    );
  });

  it("gives the certificate copy's fix as install's cron line runs it, and install where there is none", async () => {
    const layout = hostLayout(path.join(dir, 'host'));
    expect(await tlsSyncCommand(layout)).toBe(`sudo npm run atrium -- install --root ${layout.root}`);
    mkdirSync(layout.cronDir, { recursive: true });
    writeFileSync(
      path.join(layout.cronDir, 'atrium-tls'),
      '# Written by install\n* * * * * root /opt/atrium/current/deploy/atrium-tls-sync -c /var/lib/caddy/.local/share/caddy mail.example.com /etc/atrium/tls >/dev/null\n',
    );
    expect(await tlsSyncCommand(layout)).toBe(
      '/opt/atrium/current/deploy/atrium-tls-sync -c /var/lib/caddy/.local/share/caddy mail.example.com /etc/atrium/tls',
    );
  });

  it("names the group to join when the key's directory lets only its group through (Debian's /etc/ssl/private)", async () => {
    const layout = hostLayout(path.join(dir, 'ssl-host'));
    chmodSync(dir, 0o755); // mkdtemp's 0700 would stop caddy before the directory under test
    const privateDir = path.join(dir, 'ssl-host/etc/ssl/private');
    mkdirSync(privateDir, { recursive: true, mode: 0o755 });
    const files = makeCertificate(privateDir, 'mail', { names: ['mail.example.com'], days: 60 });
    chownSync(files.key, uidOf('caddy').uid, 0);
    chmodSync(files.key, 0o600);
    // root:ssl-cert 0710, as Debian's ssl-cert package makes it; caddy is not in that group.
    chownSync(privateDir, 0, gidOf('ssl-cert'));
    chmodSync(privateDir, 0o710);
    const settings = { ATRIUM_INSTALL_TLS_CERT: files.cert, ATRIUM_INSTALL_TLS_KEY: files.key };
    const check = caddyChecks(layout, settings).find((c) => c.name === 'Caddy reads the TLS key')!;
    expect(await lines([check])).toEqual([
      `✗ Caddy reads the TLS key: user caddy cannot enter ${privateDir} (root:ssl-cert 0710), so it cannot read ${files.key}: Caddy does not start — fix: adduser caddy ssl-cert; ${layout.initDir}/atrium-caddy restart`,
    ]);
  });

  describe('cron, where PID 1 is not systemd', () => {
    const proc = path.join(dir, 'proc');
    const processes = (names: Record<number, string>) => {
      rmSync(proc, { recursive: true, force: true });
      for (const [pid, name] of Object.entries(names)) {
        mkdirSync(path.join(proc, pid), { recursive: true });
        writeFileSync(path.join(proc, pid, 'comm'), `${name}\n`);
      }
      mkdirSync(path.join(proc, 'self'), { recursive: true });
    };

    it('passes while a cron process runs', async () => {
      processes({ 1: 'init', 42: 'cron', 77: 'node' });
      expect(await lines([cronCheck(proc)])).toEqual([
        '✓ cron: runs (pid 42): the DKIM copy, the certificate copy and backups run',
      ]);
    });

    it('fails without one, naming what stops and the command that starts it', async () => {
      processes({ 1: 'init', 77: 'node', 78: 'crond-helper' });
      expect(await lines([cronCheck(proc)])).toEqual([
        '✗ cron: no cron process: DKIM copies, the certificate copy and backups do not run — fix: /etc/init.d/cron start',
      ]);
    });
  });
});
