import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import path from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctorCommand } from '../../src/operator/doctor/doctor.command.ts';
import { tlsSyncCommand } from '../../src/operator/doctor/mail-certificate-checks.ts';
import { readSettingsFile } from '../../src/operator/settings-file.ts';
import { MAIL_CERTIFICATE_SEEN_FILE, mtaStsMode } from '../../src/modules/mta-sts/mail-certificate-seen.ts';
import { accepts, readLog, stopChildren, uidOf } from '../support/daemons.ts';
import { freePort } from '../support/free-port.ts';
import { InstalledHost } from './installed-host.ts';
import { escape, lineOf, runFix, until } from './doctor-lines.ts';
import { makeCertificate } from './test-certificates.ts';

/**
 * doctor on a host installed with `install --root DIR` and an operator's certificate, with the
 * parts in front of Atrium running as an operator's host runs them: Caddy through the init script
 * install wrote (user caddy), Radicale as user radicale, PHP-FPM's webmail pool, Atrium, Postfix,
 * Dovecot and OpenDKIM. Each new check ✓ first; then each fault gives its own ✗ with a fix, and
 * the fix (run as printed where it is a command for this host) mends it.
 */
const CHECKOUT = path.resolve(import.meta.dirname, '../../../..');
const MAIL_HOST = 'mail.atrium.test';

let host: InstalledHost;
let layout: InstalledHost['layout'];
let tls: { cert: string; key: string };
let radicale: ChildProcess | undefined;
let radicaleAddress = '';
const started: string[] = [];

async function doctor(): Promise<string[]> {
  const lines: string[] = [];
  await doctorCommand(['--root', layout.root], CHECKOUT, (line) => lines.push(line));
  return lines;
}

const httpsPort = () => host.ports.https;
const caddyScript = () => path.join(layout.initDir, 'atrium-caddy');
const fpmConf = () => host.at('etc/php/8.2/fpm/php-fpm.conf');
const fpmSocket = () => host.at('run/php/atrium-webmail.sock');
const caddyLogTail = () => readLog(layout.caddyLog);

async function stopCaddy(): Promise<void> {
  spawnSync(caddyScript(), ['stop'], { encoding: 'utf8' });
  await until(
    async () => !(await accepts(httpsPort())),
    () => 'Caddy stopping',
  );
}

function startRadicale(): void {
  const ids = uidOf('radicale');
  radicale = spawn(
    '/usr/bin/radicale',
    ['--config', layout.radicaleConfig, '--server-hosts', radicaleAddress],
    { uid: ids.uid, gid: ids.gid, stdio: 'ignore' },
  );
}

function phpFpmPid(): number | undefined {
  const file = host.at('run/php/php8.2-fpm.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
}

async function stopPhpFpm(): Promise<void> {
  const pid = phpFpmPid();
  if (pid) process.kill(pid, 'SIGTERM');
  await until(
    () => !phpFpmPid(),
    () => 'PHP-FPM stopping (its pid file stays)',
  );
}

beforeAll(async () => {
  host = await InstalledHost.create();
  layout = host.layout;
  // The operator's certificate; its key Caddy's, 0600, as install wants it.
  const tlsDir = host.at('etc/ssl/operator');
  mkdirSync(tlsDir, { recursive: true, mode: 0o755 });
  tls = makeCertificate(tlsDir, 'operator', { names: [MAIL_HOST, 'atrium.test', '*.atrium.test'], days: 60 });
  chownSync(tls.key, uidOf('caddy').uid, 0);
  chmodSync(tls.key, 0o600);
  const installed = host.install(['--tls-cert', tls.cert, '--tls-key', tls.key]);
  if (installed.status !== 0) throw new Error(`install: ${installed.output}`);

  // Radicale on a port of this test's own (several hosts on one machine), where Atrium looks.
  radicaleAddress = `127.0.0.1:${await freePort()}`;
  host.addSettings({ DAV_RADICALE_ADDRESS: radicaleAddress });

  // What Debian's caddy package makes on a host: its log directory, user caddy's.
  if (!existsSync(path.dirname(layout.caddyLog))) {
    const caddy = uidOf('caddy');
    mkdirSync(path.dirname(layout.caddyLog), { recursive: true, mode: 0o755 });
    chownSync(path.dirname(layout.caddyLog), caddy.uid, caddy.gid);
  }
  mkdirSync(host.at('run/php'), { recursive: true, mode: 0o755 });
  // PHP-FPM's master with the pool install wrote, as Debian's php-fpm.conf includes it.
  writeFileSync(
    fpmConf(),
    `[global]\npid = ${host.at('run/php/php8.2-fpm.pid')}\nerror_log = ${host.at('var/log/php8.2-fpm.log')}\n` +
      `include = ${layout.phpFpmPoolDir}/*.conf\n`,
  );

  await host.startAtrium();
  host.syncDkim();
  // Caddy through install's init script (user caddy), the certificate's copy, the mail daemons.
  await host.startMail();
  // A host in order has been backed up (doctor reads the operator log the backup writes).
  const backup = host.scheduledBackup();
  if (backup.status !== 0) throw new Error(`${backup.command}: ${backup.stderr}`);
  startRadicale();
  const fpm = spawnSync('/usr/sbin/php-fpm8.2', ['--fpm-config', fpmConf()], { encoding: 'utf8' });
  if (fpm.status !== 0) throw new Error(`php-fpm: ${fpm.stderr}`);
  await until(
    async () => (await accepts(Number(radicaleAddress.split(':')[1]))) && existsSync(fpmSocket()),
    () => 'Radicale and PHP-FPM',
  );
}, 240_000);

afterAll(async () => {
  if (!host) return;
  await stopPhpFpm().catch(() => undefined);
  if (radicale) await stopChildren([radicale]);
  for (const pidFile of started) {
    if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
  }
  await host.close();
}, 60_000);

describe('doctor: Caddy, Radicale, PHP-FPM, the mail certificate and the log files', () => {
  it('shows ✓ for each of them on a host with everything up', async () => {
    const lines = await doctor();
    const address = `127.0.0.1:${httpsPort()}`;
    expect(lineOf(lines, 'Caddy running')).toMatch(
      new RegExp(`^✓ Caddy running: pid \\d+ \\(${host.at('run/caddy.pid')}\\)$`),
    );
    expect(lineOf(lines, 'Caddy listening')).toBe(`✓ Caddy listening: https on ${address}`);
    expect(lineOf(lines, 'Caddy reads the TLS key')).toBe(
      `✓ Caddy reads the TLS key: user caddy reads ${tls.key} (caddy:root 0600); no other user can`,
    );
    expect(lineOf(lines, 'Radicale answering')).toMatch(
      new RegExp(`^✓ Radicale answering: answers at ${radicaleAddress} \\(HTTP \\d+\\)$`),
    );
    expect(lineOf(lines, 'Calendars and contacts (/dav/)')).toBe(
      `✓ Calendars and contacts (/dav/): https://${MAIL_HOST}:${httpsPort()}/dav/ asks a device to sign in (401), through Caddy`,
    );
    expect(lineOf(lines, 'PHP-FPM (webmail)')).toBe(
      `✓ PHP-FPM (webmail): the atrium-webmail pool answers on ${fpmSocket()}`,
    );
    expect(lineOf(lines, 'Mail certificate')).toMatch(
      new RegExp(
        // Self-signed: a sending server could not verify it, so MTA-STS stays in testing.
        `^✓ Mail certificate: ${layout.mailCert} valid for ${MAIL_HOST} for 59 more days \\(until \\S+\\); served by Dovecot and Postfix; MTA-STS in testing: not trusted by the system's roots \\(Dovecot: \\w+; Postfix: \\w+\\)$`,
      ),
    );
    expect(lineOf(lines, 'Log files')).toMatch(
      /^✓ Log files: atrium\.log \d+(\.\d)? [kM]B, postfix\.log .*, dovecot\.log .*, caddy\.log .*$/,
    );
    // MAIL_HOST as Caddy serves it to devices, trusted through the operator's certificate.
    expect(lineOf(lines, `Certificate of ${MAIL_HOST}:${httpsPort()}`)).toMatch(
      new RegExp(`^✓ Certificate of ${MAIL_HOST}:${httpsPort()}: valid for 59 more days \\(until \\S+\\)$`),
    );
    // Under --root the host's cron is not this host's: no line for it.
    expect(lines.find((l) => l.slice(2).startsWith('cron:'))).toBeUndefined();
    // Every part of the host runs: nothing fails, and the command exits 0 for monitors.
    expect(
      lines.filter((l) => l.startsWith('✗')),
      lines.join('\n'),
    ).toEqual([]);
    const run = spawnSync(
      process.execPath,
      [path.join(CHECKOUT, 'apps/server/src/cli.ts'), 'doctor', '--root', layout.root],
      { cwd: CHECKOUT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
  }, 60_000);

  it('names Radicale stopped, with the command that starts it where Atrium looks for it', async () => {
    await stopChildren([radicale!]);
    radicale = undefined;
    const line = lineOf(await doctor(), 'Radicale answering');
    const pidFile = host.at('run/radicale.pid');
    expect(line).toBe(
      `✗ Radicale answering: Radicale does not answer at ${radicaleAddress} (ECONNREFUSED): calendars and contacts at https://${MAIL_HOST}:${httpsPort()}/dav/ answer 502 — fix: ` +
        `start-stop-daemon --start --background --make-pidfile --pidfile ${pidFile} --chuid radicale:radicale --startas /usr/bin/radicale -- --config ${layout.radicaleConfig} --server-hosts ${radicaleAddress}`,
    );
    started.push(pidFile);
    runFix(line);
    await until(
      () => accepts(Number(radicaleAddress.split(':')[1])),
      () => 'Radicale from the fix',
    );
    expect(lineOf(await doctor(), 'Radicale answering')).toMatch(/^✓ /);
  }, 60_000);

  it("names Caddy stopped with its log's last error, and its start command works", async () => {
    await stopCaddy();
    // What Caddy writes when it cannot load a certificate (JSON lines, its file log's format).
    appendFileSync(
      layout.caddyLog,
      `${JSON.stringify({ level: 'error', ts: 1795939200.5, logger: 'tls', msg: 'loading certificate', error: `open ${tls.key}: permission denied` })}\n` +
        `${JSON.stringify({ level: 'info', ts: 1795939201, msg: 'shutting down' })}\n`,
    );
    const lines = await doctor();
    expect(lineOf(lines, 'Caddy running')).toBe(
      `✗ Caddy running: no live process in ${host.at('run/caddy.pid')}; its log's last error: 2026-11-29T08:00:00Z loading certificate: open ${tls.key}: permission denied — fix: ${caddyScript()} start; if it stops again, tail -n 20 ${layout.caddyLog}`,
    );
    expect(lineOf(lines, 'Caddy listening')).toBe(
      `✗ Caddy listening: nothing answers on 127.0.0.1:${httpsPort()} (ECONNREFUSED): the console, webmail and /dav/ are unreachable — fix: ${caddyScript()} start`,
    );
    expect(lineOf(lines, 'Calendars and contacts (/dav/)')).toBe(
      `✗ Calendars and contacts (/dav/): https://${MAIL_HOST}:${httpsPort()}/dav/: Caddy does not answer on 127.0.0.1:${httpsPort()} (ECONNREFUSED) — fix: ${caddyScript()} start`,
    );
    runFix(lineOf(lines, 'Caddy listening'));
    await until(
      () => accepts(httpsPort()),
      () => `Caddy from the fix:\n${caddyLogTail()}`,
    );
    const after = await doctor();
    for (const name of ['Caddy running', 'Caddy listening', 'Calendars and contacts (/dav/)']) {
      expect(lineOf(after, name)).toMatch(/^✓ /);
    }
  }, 60_000);

  it("names a key Caddy's user cannot read, and one every user can, each with its fix", async () => {
    chownSync(tls.key, 0, 0);
    chmodSync(tls.key, 0o600);
    let line = lineOf(await doctor(), 'Caddy reads the TLS key');
    expect(line).toBe(
      `✗ Caddy reads the TLS key: user caddy cannot read ${tls.key} (root:root 0600): Caddy does not start — fix: chown caddy ${tls.key} && chmod 600 ${tls.key}; ${caddyScript()} restart`,
    );
    runFix(line);
    await until(
      () => accepts(httpsPort()),
      () => `Caddy restarted:\n${caddyLogTail()}`,
    );
    expect(lineOf(await doctor(), 'Caddy reads the TLS key')).toMatch(/^✓ /);

    chmodSync(tls.key, 0o644);
    line = lineOf(await doctor(), 'Caddy reads the TLS key');
    expect(line).toBe(
      `✗ Caddy reads the TLS key: ${tls.key} (caddy:root 0644) is readable by every user on this host — fix: chmod 600 ${tls.key}`,
    );
    runFix(line);
    expect(lineOf(await doctor(), 'Caddy reads the TLS key')).toMatch(/^✓ /);
  }, 60_000);

  it('fails the certificate Caddy serves for the mail host when it expires in 5 days', async () => {
    const original = { cert: readFileSync(tls.cert), key: readFileSync(tls.key) };
    const soon = makeCertificate(host.at('etc/ssl/operator'), 'five-days', {
      names: [MAIL_HOST, 'atrium.test', '*.atrium.test'],
      days: 5,
    });
    const restartCaddy = async () => {
      await stopCaddy();
      spawnSync(caddyScript(), ['start']);
      await until(
        () => accepts(httpsPort()),
        () => `Caddy restarted:\n${caddyLogTail()}`,
      );
    };
    // The operator's files replaced by a certificate about to expire, which Caddy now serves.
    writeFileSync(tls.cert, readFileSync(soon.cert));
    writeFileSync(tls.key, readFileSync(soon.key));
    await restartCaddy();
    try {
      expect(lineOf(await doctor(), `Certificate of ${MAIL_HOST}:${httpsPort()}`)).toMatch(
        new RegExp(
          `^✗ Certificate of ${MAIL_HOST}:${httpsPort()}: valid for 4 more days \\(until \\S+\\) — fix: renew it \\(replace ${escape(tls.cert)} \\(or let Caddy obtain one: install without --tls-cert\\), then ${escape(caddyScript())} restart\\)$`,
        ),
      );
    } finally {
      writeFileSync(tls.cert, original.cert);
      writeFileSync(tls.key, original.key);
      await restartCaddy();
    }
  }, 60_000);

  it('names PHP-FPM stopped: webmail answers 502, with the command that starts it', async () => {
    await stopPhpFpm();
    const line = lineOf(await doctor(), 'PHP-FPM (webmail)');
    expect(line).toMatch(
      new RegExp(
        `^✗ PHP-FPM \\(webmail\\): nothing answers on ${fpmSocket()} \\((ENOENT|ECONNREFUSED)\\): webmail answers 502 — fix: /usr/sbin/php-fpm8\\.2 --fpm-config ${fpmConf()}$`,
      ),
    );
    runFix(line);
    await until(
      () => existsSync(fpmSocket()),
      () => 'PHP-FPM from the fix',
    );
    expect(lineOf(await doctor(), 'PHP-FPM (webmail)')).toMatch(/^✓ /);
  }, 60_000);

  describe('the mail certificate', () => {
    const saved = () => ({ cert: readFileSync(layout.mailCert), key: readFileSync(layout.mailKey) });
    const restore = (copy: { cert: Buffer; key: Buffer }) => {
      writeFileSync(layout.mailCert, copy.cert);
      writeFileSync(layout.mailKey, copy.key, { mode: 0o600 });
    };

    it('records a certificate the system trusts for MTA-STS to enforce, and takes it back once it is not', async () => {
      const dataDir = readSettingsFile(layout.settingsFile)!.DATA_DIR!;
      const seen = path.join(dataDir, MAIL_CERTIFICATE_SEEN_FILE);
      const config = { dataDir, mailHost: MAIL_HOST };
      expect(await mtaStsMode(config)).toBe('testing');
      const roots = getCACertificates('default');
      // As if a public CA had issued it: the operator's certificate among the system's roots.
      setDefaultCACertificates([...roots, readFileSync(tls.cert, 'utf8')]);
      try {
        expect(lineOf(await doctor(), 'Mail certificate')).toMatch(
          /; served by Dovecot and Postfix; MTA-STS in enforce: trusted by the system's roots$/,
        );
      } finally {
        setDefaultCACertificates(roots);
      }
      expect(await mtaStsMode(config)).toBe('enforce');
      // Owned like DATA_DIR (user atrium's), not root's.
      expect(statSync(seen).uid).toBe(statSync(path.dirname(seen)).uid);
      expect(lineOf(await doctor(), 'Mail certificate')).toMatch(/; MTA-STS in testing: not trusted/);
      expect(existsSync(seen)).toBe(false);
      expect(await mtaStsMode(config)).toBe('testing');
    }, 60_000);

    it('fails one expiring in 5 days, with the command that copies it again', async () => {
      const copy = saved();
      const dir = host.at('etc/ssl/operator');
      const soon = makeCertificate(dir, 'soon', { names: [MAIL_HOST], days: 5 });
      copyFileSync(soon.cert, layout.mailCert);
      copyFileSync(soon.key, layout.mailKey);
      try {
        expect(lineOf(await doctor(), 'Mail certificate')).toMatch(
          new RegExp(
            `^✗ Mail certificate: ${layout.mailCert} valid for ${MAIL_HOST} for 4 more days \\(until \\S+\\) — fix: ${escape(await tlsSyncCommand(layout))}$`,
          ),
        );
      } finally {
        restore(copy);
      }
    }, 60_000);

    it('fails one renewed on disk but not reloaded by Dovecot and Postfix, naming their reloads', async () => {
      const copy = saved();
      const renewed = makeCertificate(host.at('etc/ssl/operator'), 'renewed', {
        names: [MAIL_HOST],
        days: 90,
      });
      copyFileSync(renewed.cert, layout.mailCert);
      copyFileSync(renewed.key, layout.mailKey);
      try {
        const line = lineOf(await doctor(), 'Mail certificate');
        expect(line).toMatch(
          /^✗ Mail certificate: Dovecot \(imaps 127\.0\.0\.1:\d+\) serves another certificate /,
        );
        expect(line).toMatch(/; Postfix \(\w+ 127\.0\.0\.1:\d+\) serves another certificate /);
        expect(line).toContain(`than ${layout.mailCert} `);
        expect(line).toContain(
          `: renewed but not reloaded — fix: doveadm -c ${path.join(layout.dovecotDir, 'dovecot.conf')} reload; postfix -c ${layout.postfixDir} reload`,
        );
      } finally {
        restore(copy);
      }
    }, 60_000);

    it('fails when the copies are not there (a host installed before), with install as the fix', async () => {
      renameSync(layout.mailTlsDir, `${layout.mailTlsDir}.away`);
      try {
        expect(lineOf(await doctor(), 'Mail certificate')).toBe(
          `✗ Mail certificate: ${layout.mailCert} and ${layout.mailKey} missing: Postfix and Dovecot have no certificate for ${MAIL_HOST} (installed before they served Caddy's) — fix: sudo npm run atrium -- install --root ${layout.root}`,
        );
      } finally {
        renameSync(`${layout.mailTlsDir}.away`, layout.mailTlsDir);
      }
    }, 60_000);
  });

  describe('the log files', () => {
    it('warns about a log past 500 MB (logrotate not running) or not written yet, and fails a directory its owner cannot write', async () => {
      const dovecotLog = path.join(layout.mailLogDir, 'dovecot.log');
      const length = readFileSync(dovecotLog).length;
      // A sparse file: the size a month without logrotate reaches, without the disk space.
      truncateSync(dovecotLog, 600 * 1024 ** 2);
      try {
        const lines = await doctor();
        expect(lineOf(lines, 'Log files')).toBe(
          `⚠ Log files: ${dovecotLog} is 600.0 MB, over 500.0 MB: logrotate does not run — next: logrotate -f ${path.join(layout.logrotateDir, 'atrium')}`,
        );
      } finally {
        truncateSync(dovecotLog, length);
      }
      // A fresh host: Caddy has not written its log yet. A warning, not a failure.
      renameSync(layout.caddyLog, `${layout.caddyLog}.1`);
      try {
        expect(lineOf(await doctor(), 'Log files')).toBe(
          `⚠ Log files: ${layout.caddyLog} not written yet — next: it appears when Caddy first logs; if it stays missing: ${caddyScript()} restart`,
        );
      } finally {
        renameSync(`${layout.caddyLog}.1`, layout.caddyLog);
      }
      const caddyLogDir = path.dirname(layout.caddyLog);
      chmodSync(caddyLogDir, 0o555);
      try {
        expect(lineOf(await doctor(), 'Log files')).toBe(
          `✗ Log files: ${caddyLogDir} is not writable by its owner (mode 0555): Caddy logs nowhere — fix: chmod u+w ${caddyLogDir}`,
        );
      } finally {
        chmodSync(caddyLogDir, 0o755);
      }
    }, 60_000);
  });
});
