import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debianProblem } from '../../src/operator/install/host-prerequisites.ts';
import { checkoutProblem } from '../../src/operator/install/release.ts';
import { atriumCli, InstalledHost } from './installed-host.ts';

// install's runs without starting anything: what --dry-run lists, a changed option applied on
// the next run, and the one-line refusals. (install-host.test.ts runs the daemons it set up.)

let host: InstalledHost;

beforeAll(async () => {
  host = await InstalledHost.create();
});

afterAll(async () => {
  await host?.close();
});

describe('install', () => {
  it('--dry-run lists every change and makes none', () => {
    const dry = host.install(['--dry-run']);
    expect(dry.status, dry.output).toBe(0);
    expect(dry.stdout).toContain(`would create ${host.layout.settingsFile}`);
    expect(dry.stdout).toContain(`would create ${path.join(host.layout.postfixDir, 'main.cf')}`);
    expect(dry.stdout).toMatch(/would deploy release \S+/);
    // The daily backup: a timer and its service with systemd, a cron line without.
    for (const file of [
      path.join(host.layout.systemdDir, 'atrium-backup.service'),
      path.join(host.layout.systemdDir, 'atrium-backup.timer'),
      path.join(host.layout.cronDir, 'atrium-backup'),
      path.join(host.layout.logrotateDir, 'atrium'),
    ]) {
      expect(dry.stdout).toContain(`would create ${file}\n`);
    }
    expect(dry.stdout).toMatch(/\d+ changes would be made \(dry run\)\./);
    // The DNS records to publish: the mail host's SPF record, which every domain's include: reads.
    expect(dry.stdout).toContain('  mail.atrium.test.  TXT  "v=spf1 a -all"');
    expect(readdirSync(host.layout.root)).toEqual([]);
  });

  // Three runs of the CLI, the first deploying a release: more than the default on a busy machine.
  it('applies a changed option on the next run, and only what it changes', () => {
    expect(host.install().status).toBe(0);
    const moved = atriumCli([...host.installArgs(), '--smtp-port', '2525']);
    expect(moved.status, moved.output).toBe(0);
    const changed = moved.stdout.split('\n').filter((line) => line.startsWith('update '));
    expect(changed).toEqual([
      `update ${host.layout.settingsFile} (content)`,
      `update ${path.join(host.layout.postfixDir, 'master.cf')} (content)`,
    ]);
    expect(readFileSync(path.join(host.layout.postfixDir, 'master.cf'), 'utf8')).toMatch(
      /^127\.0\.0\.1:2525 inet/m,
    );
    // Recorded: a run without the option keeps it.
    const again = atriumCli(['install', '--root', host.layout.root]);
    expect(again.stdout).toContain('No changes: this host is as install leaves it.');
  }, 120_000);

  it("sends Atrium's own mail through the host's Postfix, and rotates every log with logrotate", () => {
    const settings = readFileSync(host.layout.settingsFile, 'utf8');
    expect(settings).toContain(`\nSMTP_URL=smtp://127.0.0.1:${host.ports.relay}\n`);
    expect(readFileSync(path.join(host.layout.postfixDir, 'master.cf'), 'utf8')).toContain(
      `127.0.0.1:${host.ports.relay} inet n - n - - smtpd\n  -o syslog_name=postfix/atrium\n`,
    );
    const postfixLog = path.join(host.layout.mailLogDir, 'postfix.log');
    expect(readFileSync(path.join(host.layout.postfixDir, 'main.cf'), 'utf8')).toContain(
      `maillog_file = ${postfixLog}\n`,
    );
    const rotate = path.join(host.layout.logrotateDir, 'atrium');
    const text = readFileSync(rotate, 'utf8');
    for (const file of [
      `${host.layout.logDir}/*.log`,
      postfixLog,
      path.join(host.layout.mailLogDir, 'dovecot.log'),
    ]) {
      expect(text).toContain(`${file} {\n    daily\n`);
    }
    const state = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-logrotate-')), 'state');
    const debug = spawnSync('/usr/sbin/logrotate', ['-d', '-s', state, rotate], { encoding: 'utf8' });
    expect(debug.status, `${debug.stdout}${debug.stderr}`).toBe(0);
    expect(debug.stderr).not.toMatch(/error/i);
  });

  it('moves the daily backup to BACKUP_TIME, and refuses a time that is none in one line', () => {
    const timer = path.join(host.layout.systemdDir, 'atrium-backup.timer');
    const cron = path.join(host.layout.cronDir, 'atrium-backup');
    expect(readFileSync(timer, 'utf8')).toContain('OnCalendar=*-*-* 03:15:00\n');
    host.addSettings({ BACKUP_TIME: '1:30' });
    const moved = atriumCli(['install', '--root', host.layout.root]);
    expect(moved.status, moved.output).toBe(0);
    expect(moved.stdout.split('\n').filter((line) => line.startsWith('update '))).toEqual([
      `update ${timer} (content)`,
      `update ${cron} (content)`,
    ]);
    expect(readFileSync(timer, 'utf8')).toContain('OnCalendar=*-*-* 01:30:00\n');
    expect(readFileSync(cron, 'utf8')).toMatch(
      /^30 1 \* \* \* root cd \S+ && nice -n 19 ionice -c 3 .+ backup --scheduled --root /m,
    );

    host.addSettings({ BACKUP_TIME: '25:00' });
    const refused = atriumCli(['install', '--root', host.layout.root]);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe('Setting BACKUP_TIME=25:00: a time of day as HH:MM (24-hour), or off');
  }, 60_000);

  it('refuses a bad URL, a missing option and a port out of range in one line each', () => {
    const badUrl = atriumCli([
      'install',
      '--root',
      mkdtempSync(path.join(tmpdir(), 'atrium-root-')),
      '--public-url',
      'atrium',
    ]);
    expect(badUrl.status).toBe(1);
    expect(badUrl.stderr.trim()).toBe(
      '--public-url atrium: not an absolute URL (e.g. https://atrium.example.com)',
    );
    const missing = atriumCli(['install', '--root', mkdtempSync(path.join(tmpdir(), 'atrium-root-'))]);
    expect(missing.stderr.trim()).toBe(
      "--public-url is required on the first install: the console's address, e.g. https://atrium.example.com",
    );
    const port = atriumCli([...host.installArgs(), '--imap-port', '70000']);
    expect(port.stderr.trim()).toBe('--imap-port 70000: expected a port number 1-65535');
  });

  it('refuses a host that is not Debian 12, and a checkout that is not built, naming them', () => {
    const osRelease = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-os-')), 'os-release');
    writeFileSync(osRelease, 'PRETTY_NAME="Ubuntu 24.04 LTS"\nID=ubuntu\nVERSION_ID="24.04"\n');
    expect(debianProblem(osRelease)).toBe(
      'This host runs Ubuntu 24.04 LTS: install needs Debian 12 (bookworm)',
    );
    expect(debianProblem('/etc/os-release')).toBeUndefined();
    const checkout = mkdtempSync(path.join(tmpdir(), 'atrium-checkout-'));
    expect(checkoutProblem(checkout)).toBe(`${checkout}: no node_modules — run npm ci in the checkout first`);
  });
});
