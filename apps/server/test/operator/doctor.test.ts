import { execFile, spawnSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import type { Server } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { doctorCommand } from '../../src/operator/doctor/doctor.command.ts';
import { hostLayout } from '../../src/operator/host-layout.ts';
import { readSettingsFile } from '../../src/operator/settings-file.ts';
import { createSaslRelay } from '../../src/supervisor/sasl-relay.ts';
import { accepts, stopChildren, uidOf } from '../support/daemons.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { startInstalledRspamd } from '../support/rspamd-servers.ts';
import { createOrganizationWithAdmin } from '../support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { insertVerifiedDomainWithKey } from './verified-domain.ts';
import { ensureServiceUsers } from './installed-host.ts';
import {
  freePorts,
  installWithOperatorCertificate,
  MAIL_HOST,
  moveRadicale,
  prepareHostFiles,
  startDovecot,
  startFront,
  startMailDaemons,
  until,
} from './doctor-host.ts';

/**
 * `doctor` on a host installed with `install --root DIR`: Dovecot, Postfix and OpenDKIM started
 * from DIR's files on free loopback ports, Atrium listening where the settings file says, one
 * organisation with a verified domain whose records a loopback DNS server publishes. All ✓ first,
 * then each fault the issue names gives its own ✗ with its fix, and is mended again.
 */
const CHECKOUT = path.resolve(import.meta.dirname, '../../../..');

const root = mkdtempSync('/var/lib/atrium-doctor-test-');
const layout = hostLayout(root);
let dns: TestDnsServer;
let database: TestDatabase;
let app: FastifyInstance;
let opendkim: ChildProcess | undefined;
let dkimPublicKey: string;
let radicale: ChildProcess | undefined;
let spam: ChildProcess[] = [];
let relay: Server | undefined;
let radicaleAddress = '';
let httpsPort = 0;
const caddyScript = path.join(layout.initDir, 'atrium-caddy');
const keyFile = path.join(layout.opendkimKeysDir, 'atrium._domainkey.acme.example.pem');
const dovecotConf = path.join(layout.dovecotDir, 'dovecot.conf');

async function doctor(): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  const ok = await doctorCommand(['--root', root], CHECKOUT, (line) => lines.push(line));
  return { ok, lines };
}

/**
 * A command as an operator runs it, for its exit code. Asynchronously: the Atrium it asks runs
 * in this process, and spawnSync would stop it from answering.
 */
function cli(command = 'doctor'): Promise<{ status: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['apps/server/src/cli.ts', command, '--root', root],
      { cwd: CHECKOUT, encoding: 'utf8', timeout: 120_000 },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code) : 0, stdout: stdout + stderr }),
    );
  });
}

const lineOf = (lines: string[], name: string) => lines.find((l) => l.slice(2).startsWith(`${name}:`));

beforeAll(async () => {
  chmodSync(root, 0o755);
  ensureServiceUsers();
  const ports = await freePorts();
  httpsPort = ports.https;
  await installWithOperatorCertificate(layout, ports, CHECKOUT);
  dns = await TestDnsServer.start();
  // An operator's own setting: the settings file's content is theirs too (doctor compares only its mode).
  appendFileSync(layout.settingsFile, `DNS_SERVERS=${dns.address}\nDNS_TIMEOUT_MS=1000\n`);
  radicaleAddress = await moveRadicale(layout);
  const settings = readSettingsFile(layout.settingsFile)!;

  prepareHostFiles(layout, keyFile);
  // rspamd and Redis first: Postfix's milter (users _rspamd and redis, as their services run).
  spam = await startInstalledRspamd(layout, {
    rspamd: ports.rspamd,
    controller: ports['rspamd-controller'],
    redis: ports.redis,
  });
  opendkim = await startMailDaemons(layout, ports.dkim);

  // Atrium as the service would run it, on a fresh database.
  database = await createTestDatabase();
  app = await buildApp(loadConfig({ ...settings, LOG_LEVEL: 'silent' }), { db: database.db });
  await app.listen({ port: ports.atrium, host: '127.0.0.1' });
  // The supervisor's relay of Postfix's sign-ins, which the service runs beside Atrium.
  relay = createSaslRelay({ host: '127.0.0.1', port: ports.auth }, { warn: () => undefined });
  await new Promise<void>((resolve) => relay!.listen(ports.sasl, '127.0.0.1', () => resolve()));
  // Caddy (user caddy) and Radicale (user radicale) in front of it.
  radicale = await startFront(layout, httpsPort, radicaleAddress);
  // Postfix and Dovecot asked a moment ago (each lookup records it; docs/mail.md).
  await database.db
    .insertInto('mail_server_contacts')
    .values([{ kind: 'postfix' }, { kind: 'dovecot' }].map((v) => ({ ...v, last_asked_at: new Date() })))
    .execute();
  const org = await createOrganizationWithAdmin(database.db, { siteName: 'acme' });
  dkimPublicKey = await insertVerifiedDomainWithKey(
    database.db,
    org.id,
    'acme.example',
    settings.ATRIUM_SECRET!,
  );
  dns.set('acme.example', {
    MX: [{ exchange: MAIL_HOST, priority: 10 }],
    TXT: [`v=spf1 include:${MAIL_HOST} ~all`],
  });
  publishDkim();
  dns.set('_dmarc.acme.example', { TXT: ['v=DMARC1; p=quarantine; rua=mailto:dmarc@acme.example'] });
  // The mail host's address and the SPF record install prints for it, which the include: reads.
  dns.set(MAIL_HOST, { A: ['127.0.0.1'], TXT: ['v=spf1 a -all'] });

  // A host in order has been backed up: the backup (restic, the dump from the Atrium above) writes
  // the operator log that doctor reads.
  const backup = await cli('backup');
  if (backup.status !== 0) throw new Error(`backup failed: ${backup.stdout}`);
}, 180_000);

const publishDkim = () =>
  dns.set('atrium._domainkey.acme.example', { TXT: [`v=DKIM1; k=rsa; p=${dkimPublicKey}`] });

afterAll(async () => {
  await stopChildren(spam);
  relay?.close();
  spawnSync(caddyScript, ['stop'], { stdio: 'ignore' });
  if (radicale) await stopChildren([radicale]);
  spawnSync('/usr/sbin/postfix', ['-c', layout.postfixDir, 'stop'], { stdio: 'ignore' });
  spawnSync('/usr/bin/doveadm', ['-c', dovecotConf, 'stop'], { stdio: 'ignore' });
  if (opendkim && opendkim.exitCode === null) {
    await new Promise<void>((resolve) => {
      opendkim!.once('exit', () => resolve());
      opendkim!.kill('SIGTERM');
    });
  }
  await app?.close();
  await database?.drop();
  await dns?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('npm run atrium -- doctor', () => {
  it('reports every check ✓ on the host install set up, and exits 0', async () => {
    const { ok, lines } = await doctor();
    expect(
      lines.filter((l) => l.startsWith('✗')),
      lines.join('\n'),
    ).toEqual([]);
    expect(ok).toBe(true);
    for (const name of [
      'Atrium',
      'Database',
      'Migrations',
      'Job queue',
      'Postfix asks Atrium',
      'Dovecot asks Atrium',
      'Domain acme.example',
      'Postfix running',
      'Postfix listening',
      'Dovecot running',
      'Dovecot listening',
      'OpenDKIM running',
      'OpenDKIM listening',
      'Submission sign-ins reach Dovecot',
      'Sieve (Pigeonhole)',
      'ManageSieve answers',
      'Junk filing script',
      'rspamd',
      'Redis (rspamd)',
      'Postfix configuration',
      'Dovecot configuration',
      'OpenDKIM configuration',
      'Service files',
      'DKIM keys readable by OpenDKIM',
      'Directories',
      'Settings file',
      'DATA_DIR modes',
      'DKIM key modes',
      'Disk space for DATA_DIR',
      'Disk space for mail',
      'Disk space for backups',
      'Backups',
      'Backup verify',
      'Caddy running',
      'Caddy listening',
      'Caddy reads the TLS key',
      'Radicale answering',
      'Calendars and contacts (/dav/)',
      'Mail certificate',
      'Log files',
      `Certificate of ${MAIL_HOST}:${httpsPort}`,
    ]) {
      expect(lineOf(lines, name), `${name}\n${lines.join('\n')}`).toMatch(/^✓ /);
    }
    expect(lineOf(lines, 'Backups')).toMatch(
      /^✓ Backups: Last successful backup (less than a minute|\d+ minutes?) ago \(snapshot [0-9a-f]{8}\)$/,
    );
    // A host below an install root keeps its repository there: the one warning (docs/backup.md).
    expect(lineOf(lines, 'Backup repository')).toMatch(
      /^⚠ Backup repository: .+ is on the host it protects \(below .+\): a lost disk or host loses the backups too — next: set BACKUP_REPOSITORY to another machine/,
    );
    expect(lines.at(-1)).toMatch(/^All \d+ checks pass \(1 warning: see ⚠\)\.$/);

    const run = await cli();
    expect(run.status, run.stdout).toBe(0);
  }, 60_000);

  it('warns, and still exits 0, while Postfix and Dovecot have not asked Atrium yet (a fresh host)', async () => {
    const contacts = await database.db.selectFrom('mail_server_contacts').selectAll().execute();
    await database.db.deleteFrom('mail_server_contacts').execute();
    try {
      const { ok, lines } = await doctor();
      expect(ok, lines.join('\n')).toBe(true);
      // The server names the service command of its own host (this test's daemons run below root).
      expect(lineOf(lines, 'Postfix asks Atrium')).toMatch(
        /^⚠ Postfix asks Atrium: Postfix has not asked Atrium anything yet: no message received or sent so far — next: send a message to one of your users; if this stays, check that Postfix reaches Atrium's socketmap \(doctor's listening checks above\), then .*postfix restart$/,
      );
      expect(lineOf(lines, 'Dovecot asks Atrium')).toMatch(
        /^⚠ Dovecot asks Atrium: .*no sign-in to a mailbox so far/,
      );
      expect(
        lines.filter((l) => l.startsWith('✗')),
        lines.join('\n'),
      ).toEqual([]);
      expect(lines.at(-1)).toMatch(/^All \d+ checks pass \(3 warnings: see ⚠\)\.$/);
    } finally {
      await database.db.insertInto('mail_server_contacts').values(contacts).execute();
    }
  }, 60_000);

  it('fails "DKIM keys readable by OpenDKIM" when a key file others may read, naming it and the fix', async () => {
    chmodSync(keyFile, 0o644);
    try {
      const { ok, lines } = await doctor();
      expect(ok).toBe(false);
      const line = lineOf(lines, 'DKIM keys readable by OpenDKIM')!;
      expect(line).toMatch(/^✗ /);
      expect(line).toContain(`${keyFile}: mode 0644 lets group or others in (expected 0600)`);
      expect(line).toContain(`— fix: npm run atrium -- install --root ${root}`);
      // The sync as cron runs it, with its arguments: the command alone only prints its usage.
      expect(line).toContain(
        `then ${layout.current}/deploy/atrium-dkim-sync -p ${root}/run/opendkim/opendkim.pid ${layout.dkimDir} ${layout.opendkimKeysDir} (`,
      );
      expect(lines.filter((l) => l.startsWith('✗'))).toHaveLength(1);
    } finally {
      chmodSync(keyFile, 0o600);
    }
  }, 60_000);

  it('fails "DKIM keys readable by OpenDKIM" when the key directory is writable by others', async () => {
    chmodSync(layout.opendkimKeysDir, 0o777);
    try {
      const line = lineOf((await doctor()).lines, 'DKIM keys readable by OpenDKIM')!;
      expect(line).toMatch(/^✗ /);
      expect(line).toContain(`${layout.opendkimKeysDir}: writable by group or others (mode 0777)`);
    } finally {
      chmodSync(layout.opendkimKeysDir, 0o700);
    }
  }, 60_000);

  it('fails "DKIM keys readable by OpenDKIM" when the key directory is made unreadable for it', async () => {
    // root's and 0700: still safe by OpenDKIM's rule, but OpenDKIM (user opendkim) cannot enter.
    const keys = layout.opendkimKeysDir;
    chownSync(keys, 0, 0);
    try {
      const line = lineOf((await doctor()).lines, 'DKIM keys readable by OpenDKIM')!;
      expect(line).toMatch(/^✗ /);
      expect(line).toContain(`${keys}: opendkim cannot enter it (mode 0700)`);
    } finally {
      chownSync(keys, uidOf('opendkim').uid, uidOf('opendkim').gid);
    }
  }, 60_000);

  it('names a hand-edited main.cf, with install as the fix', async () => {
    const mainCf = path.join(layout.postfixDir, 'main.cf');
    const original = readFileSync(mainCf, 'utf8');
    writeFileSync(mainCf, `${original}message_size_limit = 1\n`);
    try {
      const { ok, lines } = await doctor();
      expect(ok).toBe(false);
      expect(lineOf(lines, 'Postfix configuration')).toBe(
        `✗ Postfix configuration: differs from what install writes today: ${mainCf} (content) — fix: npm run atrium -- install --root ${root} (--dry-run lists the changes first)`,
      );
    } finally {
      writeFileSync(mainCf, original);
    }
  }, 60_000);

  it('names a domain whose DKIM record was removed, with the record to publish', async () => {
    dns.remove('atrium._domainkey.acme.example');
    try {
      const { ok, lines } = await doctor();
      expect(ok).toBe(false);
      expect(lineOf(lines, 'Domain acme.example')).toBe(
        `✗ Domain acme.example: DKIM missing at atrium._domainkey.acme.example — fix: publish atrium._domainkey.acme.example. TXT "v=DKIM1; k=rsa; p=${dkimPublicKey}"`,
      );
    } finally {
      publishDkim();
    }
  }, 60_000);

  it('reports a failed job with its kind and error', async () => {
    await database.db
      .insertInto('jobs')
      .values({ kind: 'webhook', status: 'failed', attempts: 5, last_error: 'connect ECONNREFUSED' })
      .execute();
    try {
      const { ok, lines } = await doctor();
      expect(ok).toBe(false);
      const line = lineOf(lines, 'Job queue')!;
      expect(line).toMatch(
        /^✗ Job queue: 1 failed, the latest a webhook job .* ago: connect ECONNREFUSED — fix: /,
      );
    } finally {
      await database.db.deleteFrom('jobs').execute();
    }
  }, 60_000);

  it('names Redis and then rspamd stopped, each with the command that starts it', async () => {
    const settings = readSettingsFile(layout.settingsFile)!;
    const ports = {
      rspamd: Number(settings.ATRIUM_INSTALL_RSPAMD_PORT),
      controller: Number(settings.ATRIUM_INSTALL_RSPAMDCONTROLLER_PORT),
      redis: Number(settings.ATRIUM_INSTALL_REDIS_PORT),
    };
    try {
      await stopChildren(spam.slice(1));
      let { ok, lines } = await doctor();
      expect(ok).toBe(false);
      expect(lineOf(lines, 'Redis (rspamd)')).toBe(
        `✗ Redis (rspamd): nothing answers on 127.0.0.1:${ports.redis} (ECONNREFUSED): greylisting and spam learning stop, mail still flows — fix: ${path.join(root, 'etc/init.d/redis-server')} restart`,
      );
      expect(lineOf(lines, 'rspamd')).toMatch(
        /^✓ rspamd: rspamd 3\.\d+, \d+ messages scanned since it started; /,
      );
      await stopChildren(spam);
      ({ ok, lines } = await doctor());
      expect(lineOf(lines, 'rspamd')).toBe(
        `✗ rspamd: its milter does not answer on 127.0.0.1:${ports.rspamd} (ECONNREFUSED): Postfix defers every message with 4xx — fix: ${path.join(root, 'etc/init.d/rspamd')} restart`,
      );
    } finally {
      spam = await startInstalledRspamd(layout, ports);
    }
  }, 120_000);

  it('reports Dovecot stopped, with the command that starts it, and exits 1', async () => {
    spawnSync('/usr/bin/doveadm', ['-c', dovecotConf, 'stop'], { stdio: 'ignore' });
    await until(
      async () => !(await accepts(Number(readSettingsFile(layout.settingsFile)!.ATRIUM_INSTALL_IMAP_PORT))),
      'Dovecot stopping',
    );
    try {
      const { ok, lines } = await doctor();
      expect(ok).toBe(false);
      expect(lineOf(lines, 'Dovecot running')).toBe(
        `✗ Dovecot running: no live process in ${path.join(root, 'run/dovecot/master.pid')} — fix: dovecot -c ${dovecotConf}`,
      );
      expect(lineOf(lines, 'Dovecot listening')).toMatch(
        /^✗ Dovecot listening: nothing answers on dovecot imap 127\.0\.0\.1:\d+, /,
      );
      // Submission's sign-ins wait for it too: the relay answers, Dovecot behind it does not.
      expect(lineOf(lines, 'Submission sign-ins reach Dovecot')).toMatch(
        /^✗ Submission sign-ins reach Dovecot: no answer from Dovecot's auth through 127\.0\.0\.1:\d+ — fix: /,
      );
      const run = await cli();
      expect(run.status).toBe(1);
      expect(run.stdout).toContain('✗ Dovecot running');
    } finally {
      // The old master removes master.pid as it exits, after its listeners close: started before
      // that, the new one would lose its pid file to it and doctor would find no live process.
      const pidFile = path.join(root, 'run/dovecot/master.pid');
      await until(() => Promise.resolve(!existsSync(pidFile)), 'the old Dovecot master exiting');
      startDovecot(layout);
      // The next test counts ✗ lines: Dovecot must answer again first, not a moment later.
      await until(
        async () =>
          existsSync(pidFile) &&
          (await accepts(Number(readSettingsFile(layout.settingsFile)!.ATRIUM_INSTALL_IMAP_PORT))),
        'Dovecot listening again',
      );
    }
  }, 60_000);

  describe('backups, from the operator log', () => {
    const log = path.join(layout.logDir, 'operations.log');
    let written: string;
    beforeAll(() => {
      written = readFileSync(log, 'utf8');
      expect(written).toMatch(/^\S+Z backup ok Backup [0-9a-f]{8}: /);
    });
    afterEach(() => writeFileSync(log, written));

    it('fails "Backups" when there is none yet, with the command and what schedules it', async () => {
      writeFileSync(log, '');
      const { ok, lines } = await doctor();
      expect(ok).toBe(false);
      expect(lineOf(lines, 'Backups')).toBe(
        `✗ Backups: no backup yet — fix: npm run atrium -- backup --root ${root}; scheduled daily by ${path.join(layout.cronDir, 'atrium-backup')}`,
      );
      expect(
        lines.filter((l) => l.startsWith('✗')),
        lines.join('\n'),
      ).toHaveLength(1);
    }, 60_000);

    it('fails "Backups" when the last successful one is more than 26 hours old', async () => {
      // The log's time is what the check reads: the same line, written 27 hours earlier.
      const earlier = new Date(Date.now() - 27 * 60 * 60 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      writeFileSync(log, written.replace(/^\S+/, earlier));
      const { ok, lines } = await doctor();
      expect(ok).toBe(false);
      expect(lineOf(lines, 'Backups')).toMatch(
        /^✗ Backups: Last successful backup 27 hours ago \(snapshot [0-9a-f]{8}\), more than 26 hours — fix: npm run atrium -- backup --root .+; then see why the daily one did not run: /,
      );
    }, 60_000);

    it('fails "Backups" with the reason when the latest backup failed', async () => {
      // A repository restic cannot create: a real backup run that fails.
      const settings = readFileSync(layout.settingsFile, 'utf8');
      appendFileSync(layout.settingsFile, 'BACKUP_REPOSITORY=/dev/null/repository\n');
      try {
        const backup = await cli('backup');
        expect(backup.status).toBe(1);
        expect(backup.stdout).toContain(
          'Backup repository /dev/null/repository: restic cannot open or create it',
        );
      } finally {
        writeFileSync(layout.settingsFile, settings);
      }
      expect(readFileSync(log, 'utf8').split('\n').at(-2)).toMatch(
        /^\S+Z backup failed Backup repository \/dev\/null\/repository: restic cannot open or create it/,
      );
      const { ok, lines } = await doctor();
      expect(ok).toBe(false);
      expect(lineOf(lines, 'Backups')).toMatch(
        /^✗ Backups: the latest backup, less than a minute ago, failed: Backup repository \/dev\/null\/repository: restic cannot open or create it .+; last successful backup .+ \(snapshot [0-9a-f]{8}\) — fix: /,
      );
    }, 60_000);
  });
});
