import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  newDesKey,
  roundcubeMainConfig,
  webmailCaddyRoutes,
  webmailPhpFpmPool,
  type WebmailPaths,
} from '../../src/operator/install/webmail-files.ts';
import { stopChildren } from './daemons.ts';
import { freePort } from './free-port.ts';

const PHP = '/usr/bin/php';
const PHP_FPM = '/usr/sbin/php-fpm8.2';
const CADDY = '/usr/bin/caddy';
const PACKAGE_CONFIG = '/etc/roundcube';
const SQLITE_SCHEMA = '/usr/share/roundcube/SQL/sqlite.initial.sql';

const tail = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').slice(-4000) : '(none)');

/** www-data's ids, for the files Roundcube (the pool's user) writes or reads. */
function wwwData(): { uid: number; gid: number } {
  const run = spawnSync('id', ['-u', 'www-data'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'www-data'], { encoding: 'utf8' });
  return { uid: Number(run.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Roundcube as `install` sets it up, under a temporary root: Debian's Roundcube in PHP-FPM with
 * the pool file of operator/install/webmail-files.ts (its own php-fpm.conf, as root so the pool
 * runs as www-data), behind Caddy on a loopback port with the same routes (`tls internal`), and
 * a configuration directory where Atrium (WEBMAIL_CONFIG_DIR) writes the per-host files.
 * /etc/roundcube is only read. Needs root (the pool's user), php-fpm8.2 and caddy.
 */
export class TestWebmailHost {
  readonly root = mkdtempSync(path.join(tmpdir(), 'atrium-webmail-host-'));
  readonly paths: WebmailPaths;
  port = 0;
  private children: ChildProcess[] = [];
  private output = '';

  private constructor() {
    this.paths = {
      webmailConfigDir: path.join(this.root, 'var/lib/atrium/webmail'),
      roundcubeDir: path.join(this.root, 'etc/roundcube'),
      phpFpmPoolDir: path.join(this.root, 'etc/php/8.2/fpm/pool.d'),
      socket: path.join(this.root, 'run/php/atrium-webmail.sock'),
      database: path.join(this.root, 'var/lib/roundcube/db/roundcube.db'),
    };
  }

  /** Makes the directories (WEBMAIL_CONFIG_DIR among them) and picks Caddy's port. */
  static async prepare(): Promise<TestWebmailHost> {
    const missing = [PHP, PHP_FPM, CADDY, SQLITE_SCHEMA].filter((f) => !existsSync(f));
    if (missing.length > 0) throw new Error(`The webmail test needs ${missing.join(', ')}`);
    const host = new TestWebmailHost();
    host.port = await freePort();
    const www = wwwData();
    // www-data must reach the files below the temporary root (0700 from mkdtemp).
    chmodSync(host.root, 0o711);
    for (const dir of [
      'etc',
      'etc/php',
      'etc/php/8.2',
      'etc/php/8.2/fpm',
      'var',
      'var/lib',
      'var/lib/atrium',
    ]) {
      mkdirSync(path.join(host.root, dir), { recursive: true, mode: 0o755 });
      chmodSync(path.join(host.root, dir), 0o755);
    }
    for (const dir of [host.paths.roundcubeDir, host.paths.phpFpmPoolDir, path.dirname(host.paths.socket)]) {
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o755);
    }
    // As install makes it: 2750 atrium:www-data (here root, Atrium's user in this test).
    mkdirSync(host.paths.webmailConfigDir);
    chownSync(host.paths.webmailConfigDir, 0, www.gid);
    chmodSync(host.paths.webmailConfigDir, 0o2750);
    for (const dir of ['var/lib/roundcube', 'var/lib/roundcube/db', 'roundcube-temp', 'roundcube-logs']) {
      mkdirSync(path.join(host.root, dir), { recursive: true });
      chownSync(path.join(host.root, dir), www.uid, www.gid);
    }
    return host;
  }

  /** The host's webmail as the Mail app's launch URL names it, with Caddy's port. */
  urlFor(siteHost: string): string {
    return `https://${siteHost}:${this.port}/webmail`;
  }

  get errorLog(): string {
    return path.join(this.root, 'roundcube-logs', 'errors.log');
  }

  /** Writes Roundcube's and PHP-FPM's files as install does, creates the database, starts both. */
  async start(siteHost: string, options: { managesieve?: string } = {}): Promise<void> {
    const { roundcubeDir, phpFpmPoolDir, database } = this.paths;
    for (const file of ['defaults.inc.php', 'mimetypes.php']) {
      symlinkSync(path.join(PACKAGE_CONFIG, file), path.join(roundcubeDir, file));
    }
    // Debian's config.inc.php with install's block; the test's temp and log directories after it.
    const debian = readFileSync(path.join(PACKAGE_CONFIG, 'config.inc.php'), 'utf8').replace(
      /^include\(.*debian-db-roundcube\.php.*$/m,
      '',
    );
    const main = roundcubeMainConfig(debian, {
      database,
      debianDatabase: false,
      newKey: () => newDesKey(randomBytes),
      ...(options.managesieve ? { managesieve: options.managesieve } : {}),
    });
    writeFileSync(
      path.join(roundcubeDir, 'config.inc.php'),
      `${main}$config['temp_dir'] = '${this.root}/roundcube-temp';\n$config['log_dir'] = '${this.root}/roundcube-logs';\n`,
    );
    const www = wwwData();
    const createDb = spawnSync(
      PHP,
      [
        '-r',
        '$db = new PDO("sqlite:" . $argv[1]); $db->exec(file_get_contents($argv[2]));',
        database,
        SQLITE_SCHEMA,
      ],
      { encoding: 'utf8' },
    );
    if (createDb.status !== 0) throw new Error(`Roundcube's database: ${createDb.stderr}${createDb.stdout}`);
    chownSync(database, www.uid, www.gid);

    writeFileSync(
      path.join(phpFpmPoolDir, 'atrium-webmail.conf'),
      webmailPhpFpmPool(this.paths, { listenGroup: 'root' }),
    );
    const fpmConf = path.join(this.root, 'php-fpm.conf');
    writeFileSync(
      fpmConf,
      [
        '[global]',
        `pid = ${this.root}/php-fpm.pid`,
        `error_log = ${this.root}/php-fpm.log`,
        'daemonize = no',
        `include = ${phpFpmPoolDir}/*.conf`,
        '',
      ].join('\n'),
    );
    this.spawn(PHP_FPM, ['-F', '-y', fpmConf]);

    const caddyfile = path.join(this.root, 'Caddyfile');
    writeFileSync(
      caddyfile,
      [
        '{',
        '\tadmin off',
        '\tauto_https disable_redirects',
        '\tskip_install_trust',
        `\tstorage file_system ${this.root}/caddy`,
        '}',
        `https://${siteHost}:${this.port} {`,
        '\ttls internal',
        ...webmailCaddyRoutes(this.paths)
          .trimEnd()
          .split('\n')
          .map((line) => `\t${line}`),
        '}',
        '',
      ].join('\n'),
    );
    this.spawn(CADDY, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
      HOME: this.root,
      XDG_DATA_HOME: path.join(this.root, 'caddy'),
      XDG_CONFIG_HOME: path.join(this.root, 'caddy'),
    });
    await this.waitForAnswer(siteHost);
  }

  private spawn(command: string, args: string[], env: Record<string, string> = {}) {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-6000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.children.push(child);
  }

  /** GET /webmail/ through Caddy (the site host pointed at loopback, Caddy's certificate its own). */
  private get(siteHost: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: '/webmail/',
          servername: siteHost,
          headers: { host: `${siteHost}:${this.port}` },
          rejectUnauthorized: false,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  private async waitForAnswer(siteHost: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const exited = this.children.find((c) => c.exitCode !== null);
      if (exited) throw new Error(`${exited.spawnfile} exited (${exited.exitCode}):\n${this.logs()}`);
      const status = await this.get(siteHost).catch(() => 0);
      if (status >= 500) throw new Error(`Roundcube answered ${status}:\n${this.logs()}`);
      if (status > 0) return;
      if (Date.now() > deadline)
        throw new Error(`Roundcube behind Caddy did not answer within 30 s:\n${this.logs()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Caddy's and PHP-FPM's output and Roundcube's error log, for a failing assertion's message. */
  logs(): string {
    return [
      `--- caddy / php-fpm ---\n${this.output}`,
      `--- php-fpm log ---\n${tail(path.join(this.root, 'php-fpm.log'))}`,
      `--- roundcube errors ---\n${tail(this.errorLog)}`,
    ].join('\n');
  }

  async close(): Promise<void> {
    const children = this.children;
    this.children = [];
    await stopChildren(children);
    rmSync(this.root, { recursive: true, force: true });
  }
}
