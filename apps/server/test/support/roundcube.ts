import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.ts';

/** Debian's Roundcube: the web root its package makes (index.php includes /var/lib/roundcube). */
const WEB_ROOT = '/var/lib/roundcube/public_html';
/** Read-only files of the package that Roundcube looks for in its configuration directory. */
const PACKAGE_CONFIG = '/etc/roundcube';
const SQLITE_SCHEMA = '/usr/share/roundcube/SQL/sqlite.initial.sql';
const PHP = '/usr/bin/php';

const readLog = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').slice(-6000) : '(no log)');

/**
 * Debian's `roundcube` as it ships, served by PHP's built-in web server on a free loopback port,
 * with a configuration directory, SQLite database, temp and log directories of its own in a
 * temporary directory. Roundcube takes its configuration directory from ROUNDCUBE_CONFIG_DIR
 * (program/include/iniset.php), so /etc/roundcube is never written. A Roundcube that does not
 * answer fails the test with its log.
 */
export class TestRoundcube {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'atrium-roundcube-'));
  port = 0;
  private php: ChildProcess | undefined;
  private output = '';

  private constructor() {}

  /** Picks the port, so the app can be installed in Atrium with its address before it starts. */
  static async prepare(): Promise<TestRoundcube> {
    const missing = [PHP, path.join(WEB_ROOT, 'index.php'), SQLITE_SCHEMA].filter((f) => !existsSync(f));
    if (missing.length > 0) {
      throw new Error(
        `The Roundcube test needs ${missing.join(', ')}: apt-get install --no-install-recommends ` +
          'roundcube-core roundcube-sqlite3 php-cli php-sqlite3 (scripts/test.ts and .ci/run install them)',
      );
    }
    const roundcube = new TestRoundcube();
    roundcube.port = await freePort();
    return roundcube;
  }

  /** Where the browser reaches it; the Mail app's launch URL. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get errorLog(): string {
    return path.join(this.dir, 'logs', 'errors.log');
  }

  /**
   * Writes config.inc.php (the lines Atrium's Mail app shows, then `local`, which may override
   * them) with this instance's database and directories, creates the database and starts PHP.
   */
  async start(configLines: string, local: Record<string, string | number | boolean>): Promise<void> {
    const config = path.join(this.dir, 'config');
    for (const dir of [config, path.join(this.dir, 'temp'), path.join(this.dir, 'logs')]) mkdirSync(dir);
    for (const file of ['defaults.inc.php', 'mimetypes.php']) {
      symlinkSync(path.join(PACKAGE_CONFIG, file), path.join(config, file));
    }
    const database = path.join(this.dir, 'roundcube.db');
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
    const settings: Record<string, string | number | boolean> = {
      db_dsnw: `sqlite:///${database}?mode=0600`,
      temp_dir: path.join(this.dir, 'temp'),
      log_dir: path.join(this.dir, 'logs'),
      // 24 characters: the key Roundcube encrypts the session's password (here, the token) with.
      des_key: 'atrium-roundcube-test-24',
      ...local,
    };
    const php = [
      '<?php',
      configLines,
      ...Object.entries(settings).map(([key, value]) => `$config['${key}'] = ${JSON.stringify(value)};`),
      '',
    ].join('\n');
    writeFileSync(path.join(config, 'config.inc.php'), php);

    const child = spawn(PHP, ['-S', `127.0.0.1:${this.port}`, '-t', WEB_ROOT], {
      env: { ...process.env, ROUNDCUBE_CONFIG_DIR: config },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.php = child;
    child.stdout!.on(
      'data',
      (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-6000)),
    );
    child.stderr!.on(
      'data',
      (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-6000)),
    );
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`php -S exited (${child.exitCode}):\n${this.logs()}`);
      const answer = await fetch(`${this.url}/`, { redirect: 'manual' }).catch(() => undefined);
      if (answer) {
        // Anything but Roundcube's own page or its redirect to sign in is a broken install.
        if (answer.status >= 500) throw new Error(`Roundcube answered ${answer.status}:\n${this.logs()}`);
        return;
      }
      if (Date.now() > deadline) throw new Error(`Roundcube did not answer within 20 s:\n${this.logs()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** PHP's output and Roundcube's error log, for a failing assertion's message. */
  logs(): string {
    return `--- php -S ---\n${this.output}\n--- roundcube errors ---\n${readLog(this.errorLog)}`;
  }

  async close(): Promise<void> {
    const child = this.php;
    this.php = undefined;
    if (child && child.exitCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
