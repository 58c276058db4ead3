import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { hostLayout, type HostLayout } from '../../src/operator/host-layout.ts';
import { runCommand, systemUserCommands } from '../../src/operator/install/host-prerequisites.ts';
import {
  accepts,
  exitStatus,
  readLog,
  spawnDaemon,
  stopChildren,
  stopPostfix,
  uidOf,
} from '../support/daemons.ts';
import { freePort } from '../support/free-port.ts';
import { startInstalledRspamd } from '../support/rspamd-servers.ts';
import { rspamdPaths } from '../../src/operator/install/rspamd-files.ts';
import { PGLITE_OPTIONS } from '../../src/db/connect.ts';
import { readSettingsFile } from '../../src/operator/settings-file.ts';
import { migratedTemplate } from '../support/pglite-template.ts';

const REPO = path.resolve(import.meta.dirname, '../../../..');
const CLI = path.join(REPO, 'apps/server/src/cli.ts');
/**
 * Test roots live where OpenDKIM's key check passes: it refuses a key below any directory others
 * may write, and /tmp and /var/tmp are such directories. /var/lib is root's.
 */
export const ROOTS = '/var/lib/atrium-test-hosts';
export const MAIL_HOST = 'mail.atrium.test';

export const PORT_NAMES = [
  'atrium',
  'smtp',
  'submission',
  'imap',
  'lmtp',
  'auth',
  'quota-status',
  'dkim',
  'socketmap',
  'sasl',
  'relay',
  'http',
  'https',
  'imaps',
  'submissions',
  'rspamd',
  'rspamd-controller',
  'redis',
  'managesieve',
  'policy',
] as const;
export type PortName = (typeof PORT_NAMES)[number];

/**
 * The users install creates on a host (--root creates none), made by the same commands. Test
 * files run side by side: another may be making the same user at the same moment.
 */
export function ensureServiceUsers(): void {
  for (const user of systemUserCommands({ mail: true })) {
    if (user.done()) continue;
    try {
      runCommand(user.command);
    } catch (error) {
      if (!user.done()) throw error;
    }
  }
}

/** `npm run atrium -- <args>` from this checkout, as the operator runs it. */
export function atriumCli(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, output: `${run.stdout}${run.stderr}` };
}

/**
 * A host installed by `install --root DIR` on loopback ports, with its daemons started from DIR
 * the way their packages start them on a host: Atrium through the init script install wrote (as
 * user atrium), OpenDKIM dropping to user opendkim, Postfix, Dovecot. What Debian's packages make
 * on a real host (Postfix's queue, the daemons' run directories) is made here; install does not
 * make them.
 */
export class InstalledHost {
  readonly layout: HostLayout;
  readonly ports = {} as Record<PortName, number>;
  private dovecot: ChildProcess | undefined;
  private opendkim: ChildProcess | undefined;
  private rspamd: ChildProcess | undefined;
  private redis: ChildProcess | undefined;
  private webmail: ChildProcess[] = [];
  private webmailOutput = '';
  private postfixRunning = false;
  private atriumRunning = false;
  private caddyRunning = false;

  private constructor(root: string) {
    this.layout = hostLayout(root);
  }

  static async create(): Promise<InstalledHost> {
    mkdirSync(ROOTS, { recursive: true, mode: 0o755 });
    chmodSync(ROOTS, 0o755);
    const root = mkdtempSync(path.join(ROOTS, 'host-'));
    chmodSync(root, 0o755);
    const host = new InstalledHost(root);
    for (const name of PORT_NAMES) host.ports[name] = await freePort();
    // The users install creates on a host (--root creates none): made by the same commands.
    ensureServiceUsers();
    return host;
  }

  get publicUrl(): string {
    return `http://127.0.0.1:${this.ports.atrium}`;
  }

  installArgs(extra: string[] = []): string[] {
    return [
      'install',
      '--root',
      this.layout.root,
      '--public-url',
      this.publicUrl,
      '--mail-host',
      MAIL_HOST,
      '--site-base-domain',
      'atrium.test',
      '--listen',
      '127.0.0.1',
      // No public names here: Caddy's own CA issues the certificates, still on demand.
      '--internal-tls',
      ...PORT_NAMES.flatMap((name) => [`--${name}-port`, String(this.ports[name])]),
      ...extra,
    ];
  }

  install(extra: string[] = []) {
    return atriumCli(this.installArgs(extra));
  }

  /**
   * Settings the operator sets by hand (install keeps them): a resolver, an SMTP relay. A setting
   * the file already holds is changed on its line, as an operator edits it.
   */
  addSettings(settings: Record<string, string>): void {
    const left = new Map(Object.entries(settings));
    const lines = readFileSync(this.layout.settingsFile, 'utf8')
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => {
        const key = line.slice(0, line.indexOf('='));
        if (!left.has(key)) return line;
        const value = left.get(key);
        left.delete(key);
        return `${key}=${value}`;
      });
    for (const [k, v] of left) lines.push(`${k}=${v}`);
    writeFileSync(this.layout.settingsFile, `${lines.join('\n')}\n`);
  }

  at(p: string): string {
    return path.join(this.layout.root, p);
  }

  get mailLog() {
    return path.join(this.layout.mailLogDir, 'postfix.log');
  }

  get dovecotLog() {
    return path.join(this.layout.mailLogDir, 'dovecot.log');
  }

  get atriumLog() {
    return this.at('var/log/atrium/atrium.log');
  }

  logs(): string {
    return [
      `--- atrium ---\n${readLog(this.atriumLog)}`,
      `--- postfix ---\n${readLog(this.mailLog)}`,
      `--- dovecot ---\n${readLog(this.dovecotLog)}`,
      `--- rspamd ---\n${readLog(rspamdPaths(this.layout).log)}`,
      `--- caddy ---\n${readLog(this.layout.caddyLog)}`,
    ].join('\n');
  }

  /**
   * Starts Atrium through its init script. On the embedded database a first start creates and
   * migrates it (5 s idle, three times that under the suite's load); unless `firstStart` says the
   * file is about that start, the suite's migrated template is loaded into DATA_DIR instead, as the
   * same migrations leave it. install-host.test and startup.test keep the real first start.
   */
  async startAtrium(options: { firstStart?: boolean } = {}): Promise<void> {
    if (!options.firstStart) await this.loadMigratedDatabase();
    const started = spawnSync(path.join(this.layout.initDir, 'atrium'), ['start'], { encoding: 'utf8' });
    if (started.status !== 0) throw new Error(`atrium did not start: ${started.stderr}${started.stdout}`);
    this.atriumRunning = true;
    await until(
      async () => {
        const ready = await fetch(`${this.publicUrl}/api/ready`).catch(() => undefined);
        return ready?.status === 200;
      },
      `atrium at ${this.publicUrl}:\n${readLog(this.atriumLog)}`,
    );
  }

  private async loadMigratedDatabase(): Promise<void> {
    const template = migratedTemplate();
    const pgdata = path.join(this.layout.dataDir, 'pgdata');
    if (!template || existsSync(pgdata) || readSettingsFile(this.layout.settingsFile)?.DATABASE_URL) return;
    mkdirSync(this.layout.dataDir, { recursive: true, mode: 0o700 });
    const pglite = await PGlite.create(pgdata, { ...PGLITE_OPTIONS, loadDataDir: template });
    await pglite.close();
    spawnSync('chmod', ['-R', 'go-rwx', this.layout.dataDir]);
    spawnSync('chown', ['-R', 'atrium:atrium', this.layout.dataDir]);
  }

  /**
   * Caddy as install runs it where PID 1 is not systemd: its init script, as user caddy, its
   * storage under the root's /var/lib/caddy and its own log file.
   */
  async startCaddy(): Promise<void> {
    mkdirSync(this.at('run'), { recursive: true, mode: 0o755 });
    const started = spawnSync(path.join(this.layout.initDir, 'atrium-caddy'), ['start'], {
      encoding: 'utf8',
    });
    if (started.status !== 0) throw new Error(`caddy did not start: ${started.stderr}${started.stdout}`);
    this.caddyRunning = true;
    await until(
      () => accepts(this.ports.https),
      () => `caddy:\n${readLog(this.layout.caddyLog)}`,
    );
  }

  /** What cron (or atrium-tls.timer) runs every minute: the mail host's certificate for the daemons. */
  syncTls(): string {
    const run = this.runCronLine('atrium-tls');
    if (run.status !== 0) throw new Error(`${run.command}: ${run.stderr}${run.stdout}`);
    return run.stdout;
  }

  /** Whether Caddy's storage holds its certificate for the mail host (issued at start). */
  caddyHoldsMailCertificate(): boolean {
    const dir = path.join(this.layout.caddyDataDir, 'certificates/local', MAIL_HOST);
    return existsSync(path.join(dir, `${MAIL_HOST}.crt`));
  }

  /** The CA that issued the operator's certificate, when the test installed with one. */
  operatorCa: string | undefined;

  /**
   * What a device must trust for the mail host's certificate: the operator's CA, the stand-in
   * itself while it is self-signed, else Caddy's own CA.
   */
  mailCa(): string {
    if (this.operatorCa) return this.operatorCa;
    const served = new X509Certificate(readFileSync(this.layout.mailCert));
    return served.issuer === served.subject ? served.toString() : this.caddyRootCa();
  }

  /** Caddy's own CA (--internal-tls), which a device of this host's users would be told to trust. */
  caddyRootCa(): string {
    return readFileSync(path.join(this.layout.caddyDataDir, 'pki/authorities/local/root.crt'), 'utf8');
  }

  /**
   * Caddy (whose certificate for the mail host the daemons serve), the certificate's copy, then
   * OpenDKIM, Postfix and Dovecot from the files install wrote.
   */
  async startMail(): Promise<void> {
    await this.startCaddy();
    // Unless the operator's certificate covers the mail host (the sync then copies that file).
    if (!this.cronLine('atrium-tls').includes(' -f ')) {
      await until(
        () => Promise.resolve(this.caddyHoldsMailCertificate()),
        () => `caddy's certificate for ${MAIL_HOST}:\n${readLog(this.layout.caddyLog)}`,
      );
    }
    this.syncTls();
    // What the packages make on a host: run directories and Postfix's queue and data.
    const opendkim = uidOf('opendkim');
    mkdirSync(this.at('run/opendkim'), { recursive: true, mode: 0o750 });
    chownSync(this.at('run/opendkim'), opendkim.uid, opendkim.gid);
    mkdirSync(this.at('var/spool/postfix'), { recursive: true, mode: 0o755 });
    mkdirSync(this.at('var/lib/postfix'), { recursive: true, mode: 0o700 });
    const postfix = uidOf('postfix');
    chownSync(this.at('var/lib/postfix'), postfix.uid, postfix.gid);
    mkdirSync(this.at('run/dovecot'), { recursive: true, mode: 0o755 });

    const dkim = spawnDaemon('/usr/sbin/opendkim', ['-x', this.layout.opendkimConf]);
    this.opendkim = dkim.child;
    await until(
      () => accepts(this.ports.dkim),
      () => `opendkim:\n${dkim.output()}`,
      () => dkim.exited(),
    );

    // Before Postfix, whose milter they are.
    [this.rspamd, this.redis] = await startInstalledRspamd(this.layout, {
      rspamd: this.ports.rspamd,
      controller: this.ports['rspamd-controller'],
      redis: this.ports.redis,
    });

    const config = this.layout.postfixDir;
    const permissions = spawnSync('/usr/sbin/postfix', ['-c', config, 'set-permissions'], {
      encoding: 'utf8',
    });
    const started = spawnSync('/usr/sbin/postfix', ['-c', config, 'start'], { encoding: 'utf8' });
    if (started.status !== 0) {
      throw new Error(
        `postfix did not start: ${permissions.stderr}${started.stderr}\n${readLog(this.mailLog)}`,
      );
    }
    this.postfixRunning = true;
    await until(
      () => accepts(this.ports.smtp),
      () => `postfix:\n${readLog(this.mailLog)}`,
    );

    const dovecot = spawnDaemon('/usr/sbin/dovecot', [
      '-F',
      '-c',
      path.join(this.layout.dovecotDir, 'dovecot.conf'),
    ]);
    this.dovecot = dovecot.child;
    await until(
      async () => (await accepts(this.ports.imap)) && (await accepts(this.ports.lmtp)),
      () => `dovecot:\n${dovecot.output()}\n${readLog(this.dovecotLog)}`,
      () => dovecot.exited(),
    );
  }

  /**
   * Roundcube as install set it up: PHP-FPM with the atrium-webmail pool install wrote (from a
   * php-fpm.conf like Debian's, including the root's pool directory), behind the Caddy that
   * startMail started. Roundcube's package files (defaults.inc.php…) are linked in as the
   * package has them in /etc/roundcube on a host.
   */
  async startWebmail(siteHost: string): Promise<void> {
    for (const name of ['defaults.inc.php', 'mimetypes.php', 'debian-db.php']) {
      const link = path.join(this.layout.roundcubeDir, name);
      if (!existsSync(link)) symlinkSync(path.join('/etc/roundcube', name), link);
    }
    mkdirSync(this.at('run/php'), { recursive: true, mode: 0o755 });
    const fpmConf = this.at('etc/php/8.2/fpm/php-fpm.conf');
    writeFileSync(
      fpmConf,
      `[global]\npid = ${this.at('run/php/php8.2-fpm.pid')}\nerror_log = ${this.at('var/log/php8.2-fpm.log')}\n` +
        `daemonize = no\ninclude = ${this.layout.phpFpmPoolDir}/*.conf\n`,
    );
    const keep = (chunk: Buffer) =>
      (this.webmailOutput = (this.webmailOutput + chunk.toString()).slice(-6000));
    const start = (command: string, args: string[], env: Record<string, string> = {}) => {
      const child = spawn(command, args, {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      this.webmail.push(child);
      return child;
    };
    start('/usr/sbin/php-fpm8.2', ['-F', '-y', fpmConf]);
    await until(
      async () => (await accepts(this.ports.https)) && existsSync(this.at('run/php/atrium-webmail.sock')),
      () => `caddy and php-fpm for ${siteHost}:\n${this.webmailOutput}\n${readLog(this.layout.caddyLog)}`,
    );
  }

  webmailLogs(): string {
    return this.webmailOutput;
  }

  /** What cron (or the systemd path unit) runs when Atrium rewrites OpenDKIM's tables. */
  syncDkim(): string {
    const run = this.runCronLine('atrium-dkim');
    if (run.status !== 0) throw new Error(`${run.command}: ${run.stderr}${run.stdout}`);
    return run.stdout;
  }

  /** The daily backup as cron (or atrium-backup.timer) runs it; stderr is what cron would mail. */
  scheduledBackup() {
    return this.runCronLine('atrium-backup');
  }

  /** The command of install's cron file `name`. */
  private cronLine(name: string): string {
    const line = readFileSync(path.join(this.layout.cronDir, name), 'utf8')
      .split('\n')
      .find((l) => /^[\d*]/.test(l))!;
    return line.replace(/^(\S+\s+){5}root\s+/, '').replace(/\s*>\/dev\/null$/, '');
  }

  /** The command of install's cron file `name`, run now as cron would (output kept, not discarded). */
  private runCronLine(name: string) {
    const command = this.cronLine(name);
    const run = spawnSync('sh', ['-c', command], { encoding: 'utf8', timeout: 300_000 });
    return { command, status: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  async drainQueue(): Promise<void> {
    await until(() => {
      const queue = spawnSync('/usr/sbin/postqueue', ['-c', this.layout.postfixDir, '-j'], {
        encoding: 'utf8',
      });
      return Promise.resolve(queue.status === 0 && queue.stdout.trim() === '');
    }, `Postfix's queue did not empty:\n${this.logs()}`);
  }

  /**
   * Stops everything at once: each daemon's stop waits on its own shutdown (Atrium drains, rspamd
   * ends its workers), and one after the other they took about 10 s of every file's clean-up.
   */
  async close(): Promise<void> {
    // OpenDKIM's milter library waits seconds for its threads on SIGTERM; nothing of it is kept.
    // Dovecot last: its master waits seconds for the connections Postfix and Atrium's SASL relay
    // hold to it, which end when they do.
    await Promise.all([
      stopChildren([...this.webmail, this.rspamd, this.redis]),
      stopChildren([this.opendkim], 'SIGKILL'),
      this.atriumRunning ? exitStatus(path.join(this.layout.initDir, 'atrium'), ['stop']) : undefined,
      this.caddyRunning ? exitStatus(path.join(this.layout.initDir, 'atrium-caddy'), ['stop']) : undefined,
      // Its queue is below the root.
      this.postfixRunning ? stopPostfix(this.layout.postfixDir) : undefined,
    ]);
    await stopChildren([this.dovecot]);
    // A daemon's last log line can land while the tree goes (ENOTEMPTY): try again, as rm -rf would.
    rmSync(this.layout.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}

/** `what` may be a function: a daemon's output read when it has failed, not when waiting began. */
async function until(
  ready: () => Promise<boolean>,
  what: string | (() => string),
  failed?: () => boolean,
): Promise<void> {
  const say = () => (typeof what === 'string' ? what : what());
  // Generous: a first start makes the embedded database, slow on a loaded machine.
  const deadline = Date.now() + 90_000;
  while (!(await ready())) {
    if (failed?.()) throw new Error(`exited: ${say()}`);
    if (Date.now() > deadline) throw new Error(`no answer within 90 s: ${say()}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
