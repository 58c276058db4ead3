import { spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import type { MailClient } from '../../src/modules/mail/mail-client.ts';
import {
  isSecretFile,
  mailConfigFiles,
  type MailConfigOptions,
} from '../../src/modules/mail/config/mail-config.ts';
import { SIEVE_FILES } from '../../src/modules/mail/config/dovecot-config.ts';
import { accepts, readLog, spawnDaemon, stopChildren, stopPostfix, uidOf } from './daemons.ts';
import { freePort } from './free-port.ts';
import type { TestRspamd } from './rspamd-servers.ts';

const POSTFIX = '/usr/sbin/postfix';
const DOVECOT = '/usr/sbin/dovecot';
const OPENDKIM = '/usr/sbin/opendkim';
/** The operator's copy of Atrium's DKIM tables for OpenDKIM (docs/mail.md), run as it is. */
export const DKIM_SYNC = path.resolve(import.meta.dirname, '../../../../deploy/atrium-dkim-sync');
export const MAIL_DOMAIN_HOST = 'mail.atrium.test';

/**
 * Debian's Postfix and Dovecot on free loopback ports, configured by mail-config exactly as an
 * operator's, with their queue, run directory, mailboxes and logs in a temporary directory. The
 * system's /etc/postfix, /etc/dovecot and their services are never touched. A daemon that does
 * not start fails the test with its log.
 */
export class TestMailServers {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'atrium-mail-'));
  /**
   * Where atrium-dkim-sync copies the tables for OpenDKIM. Not under /tmp: RequireSafeKeys refuses
   * a key below a directory others may write, and checks every ancestor. /run is root's, 0755; the
   * directory made in it is root's too, opened to 0755 so OpenDKIM's user can walk through it.
   */
  private readonly dkimBase = mkdtempSync('/run/atrium-dkim-test-');
  ports = {
    smtp: 0,
    submission: 0,
    imap: 0,
    lmtp: 0,
    auth: 0,
    socketmap: 0,
    dkim: 0,
    quotaStatus: 0,
    // Atrium's policy service (sending limits), which submission asks at the end of each message.
    policy: 0,
    // ManageSieve, and Postfix's loopback relay that out-of-office replies leave through.
    managesieve: 0,
    relay: 0,
  };
  private dovecot: ChildProcess | undefined;
  private opendkim: ChildProcess | undefined;
  private postfixRunning = false;
  private rspamd: TestRspamd | undefined;

  private constructor() {}

  /** Picks the ports; `env` then holds the settings the Atrium under test needs. */
  static async prepare(): Promise<TestMailServers> {
    const missing = [POSTFIX, DOVECOT, OPENDKIM].filter((file) => !existsSync(file));
    if (missing.length > 0) {
      throw new Error(
        `The mail tests need ${missing.join(' and ')}: apt-get install postfix dovecot-imapd dovecot-lmtpd ` +
          'opendkim (scripts/test.ts and .ci/run install them)',
      );
    }
    if (userInfo().uid !== 0) {
      throw new Error(
        'The mail tests run the daemons as a mail host does (started as root, OpenDKIM dropping to ' +
          'its own user, keys copied by deploy/atrium-dkim-sync): run them as root',
      );
    }
    const servers = new TestMailServers();
    chmodSync(servers.dkimBase, 0o755);
    // The daemons' own users (postfix, dovecot, mail) walk into this directory.
    chmodSync(servers.dir, 0o755);
    // Never a port handed out before (free-port.ts): two listeners on one port stop Dovecot.
    for (const name of Object.keys(servers.ports) as Array<keyof TestMailServers['ports']>) {
      servers.ports[name] = await freePort();
    }
    return servers;
  }

  get env(): Record<string, string> {
    return {
      MAIL_SOCKETMAP_ADDRESS: `127.0.0.1:${this.ports.socketmap}`,
      MAIL_DICT_SOCKET: path.join(this.dir, 'atrium-dict.sock'),
      MAIL_DKIM_DIR: this.dkimDir,
      MAIL_DKIM_OPENDKIM_DIR: this.opendkimDir,
      MAIL_HOST: MAIL_DOMAIN_HOST,
      MAIL_IMAP_ADDRESS: `127.0.0.1:${this.ports.imap}`,
      MAIL_POLICY_ADDRESS: `127.0.0.1:${this.ports.policy}`,
    };
  }

  /** Where the Atrium under test writes OpenDKIM's tables. */
  get dkimDir() {
    return path.join(this.dir, 'dkim');
  }

  /** Where OpenDKIM reads atrium-dkim-sync's copies of them (MAIL_DKIM_OPENDKIM_DIR). */
  get opendkimDir() {
    return path.join(this.dkimBase, 'opendkim');
  }

  get opendkimPid() {
    return path.join(this.dir, 'opendkim.pid');
  }

  get postfixLog() {
    return path.join(this.dir, 'postfix.log');
  }

  get dovecotLog() {
    return path.join(this.dir, 'dovecot.log');
  }

  /** Writes mail-config's files for this Atrium and starts both daemons. */
  async start(atrium: {
    url: string;
    client: MailClient;
    masterPassword?: string;
    /** The token of rspamd's policy maps, which this Atrium serves (rspamd-maps.ts). */
    rspamdMapToken?: string;
    /** rspamd's controller (or a stand-in), which moving mail into or out of Junk teaches. */
    rspamdLearn?: MailConfigOptions['rspamdLearn'];
    /** rspamd and Redis as Postfix's milter on port 25 and submission (rspamd-servers.ts). */
    rspamd?: TestRspamd;
  }): Promise<void> {
    const options: MailConfigOptions = {
      hostname: MAIL_DOMAIN_HOST,
      atriumUrl: atrium.url,
      socketmap: { host: '127.0.0.1', port: this.ports.socketmap },
      dictSocket: this.env.MAIL_DICT_SOCKET!,
      client: atrium.client,
      masterPassword: atrium.masterPassword,
      ...(atrium.rspamdLearn ? { rspamdLearn: atrium.rspamdLearn } : {}),
      ...(atrium.rspamd ? { rspamd: atrium.rspamd.options } : {}),
      listen: '127.0.0.1',
      ports: this.ports,
      policy: { host: '127.0.0.1', port: this.ports.policy },
      ...(atrium.rspamdMapToken ? { rspamdMapToken: atrium.rspamdMapToken } : {}),
      mailRoot: path.join(this.dir, 'vmail'),
      mailUser: 'mail',
      noAuthPenalty: true,
      dkim: { port: this.ports.dkim, dir: this.opendkimDir },
      paths: {
        postfixQueue: path.join(this.dir, 'postfix-queue'),
        postfixData: path.join(this.dir, 'postfix-data'),
        postfixLog: this.postfixLog,
        dovecotBase: path.join(this.dir, 'dovecot-run'),
        dovecotLog: this.dovecotLog,
        opendkimPid: this.opendkimPid,
        // With rspamd, a test speaks for another server's address (XCLIENT), as mail from outside.
        xclient: Boolean(atrium.rspamd),
      },
    };
    const dovecotDir = path.join(this.dir, 'dovecot');
    for (const [name, text] of Object.entries(mailConfigFiles(options, dovecotDir))) {
      const file = path.join(this.dir, name);
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
      writeFileSync(file, text, { mode: isSecretFile(name) ? 0o600 : 0o644 });
    }
    const mail = uidOf('mail');
    // Read at each login by Dovecot's auth process, which runs as the dovecot user (docs/mail.md).
    const masterUsers = path.join(this.dir, 'dovecot', 'atrium-master-users');
    if (existsSync(masterUsers)) {
      chownSync(masterUsers, 0, uidOf('dovecot').gid);
      chmodSync(masterUsers, 0o640);
    }
    // rspamd's controller password, read by rspamc as the mail user when IMAPSieve learns.
    const learnPassword = path.join(this.dir, 'dovecot', SIEVE_FILES.learnPassword);
    if (existsSync(learnPassword)) {
      chownSync(learnPassword, 0, mail.gid);
      chmodSync(learnPassword, 0o640);
    }
    mkdirSync(options.mailRoot, { mode: 0o770 });
    chownSync(options.mailRoot, mail.uid, mail.gid);
    for (const dir of [options.paths!.postfixQueue, options.paths!.postfixData])
      mkdirSync(dir, { mode: 0o755 });
    const postfix = uidOf('postfix');
    chownSync(options.paths!.postfixData, postfix.uid, postfix.gid);
    await this.startOpendkim();
    if (atrium.rspamd) {
      // Before Postfix: a milter that does not answer defers mail (milter_default_action).
      this.rspamd = atrium.rspamd;
      await atrium.rspamd.start(path.join(this.dir, 'rspamd'), path.join(this.dir, 'rspamd-data'));
    }
    await this.startPostfix();
    await this.startDovecot();
  }

  /**
   * OpenDKIM in the foreground on its loopback port, started as root and dropping to `opendkim`
   * like Debian's service, with RequireSafeKeys on (its default), reading the copies
   * atrium-dkim-sync makes of the tables Atrium has written at start.
   */
  private async startOpendkim(): Promise<void> {
    this.syncDkim();
    const opendkim = spawnDaemon(OPENDKIM, ['-f', '-x', path.join(this.dir, 'opendkim', 'opendkim.conf')]);
    this.opendkim = opendkim.child;
    // OpenDKIM logs to syslog only: what it wrote before exiting is all there is.
    await this.untilRunning(opendkim, 'opendkim', () => accepts(this.ports.dkim));
  }

  /**
   * What the path unit (or cron) does on a mail host when Atrium has rewritten its tables
   * (docs/mail.md): deploy/atrium-dkim-sync copies them for OpenDKIM and, when something changed,
   * sends it SIGUSR1, after which OpenDKIM reads its configuration and tables again.
   */
  async reloadDkim(): Promise<string> {
    if (!this.opendkim || this.opendkim.exitCode !== null) throw new Error('opendkim is not running');
    const printed = this.syncDkim();
    // OpenDKIM reloads on its signal thread, in milliseconds, and says so only to syslog (which
    // the tests do not have): a second's wait covers a loaded machine.
    if (printed.includes('reloaded')) await new Promise((r) => setTimeout(r, 1000));
    return printed;
  }

  /** Runs deploy/atrium-dkim-sync as the operator's path unit does; returns what it printed. */
  syncDkim(): string {
    const sync = spawnSync(DKIM_SYNC, ['-p', this.opendkimPid, this.dkimDir, this.opendkimDir], {
      encoding: 'utf8',
    });
    if (sync.status !== 0) throw new Error(`atrium-dkim-sync failed (${sync.status}): ${sync.stderr}`);
    return sync.stdout;
  }

  private async startPostfix(): Promise<void> {
    const config = path.join(this.dir, 'postfix');
    // Creates the queue's subdirectories with their owners, then starts the master daemon.
    const setPermissions = spawnSync(POSTFIX, ['-c', config, 'set-permissions'], { encoding: 'utf8' });
    const started = spawnSync(POSTFIX, ['-c', config, 'start'], { encoding: 'utf8' });
    if (started.status !== 0) {
      throw new Error(
        `postfix did not start (${started.status}):\n${setPermissions.stderr}${started.stderr}${started.stdout}\n${readLog(this.postfixLog)}`,
      );
    }
    this.postfixRunning = true;
    await this.until(() => accepts(this.ports.smtp), 'postfix', this.postfixLog);
  }

  private async startDovecot(): Promise<void> {
    const dovecot = spawnDaemon(DOVECOT, ['-F', '-c', path.join(this.dir, 'dovecot', 'dovecot.conf')]);
    this.dovecot = dovecot.child;
    await this.untilRunning(
      dovecot,
      'dovecot',
      async () =>
        (await accepts(this.ports.imap)) &&
        (await accepts(this.ports.lmtp)) &&
        (await accepts(this.ports.quotaStatus)) &&
        (await accepts(this.ports.managesieve)),
      this.dovecotLog,
    );
  }

  /** Waits until a daemon started by `spawnDaemon` is `ready`; one that exits first fails with its output and log. */
  private async untilRunning(
    daemon: ReturnType<typeof spawnDaemon>,
    name: string,
    ready: () => Promise<boolean>,
    log?: string,
  ): Promise<void> {
    await this.until(
      async () => {
        if (daemon.exited()) {
          const logged = log ? `\n${readLog(log)}` : '';
          throw new Error(`${name} exited (${daemon.child.exitCode}):\n${daemon.output()}${logged}`);
        }
        return ready();
      },
      name,
      log ?? `(${name} logs to syslog only)`,
    );
  }

  private async until(ready: () => Promise<boolean>, name: string, log: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await ready())) {
      if (Date.now() > deadline) throw new Error(`${name} did not answer within 20 s:\n${readLog(log)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Both logs, for a failing assertion's message. */
  logs(): string {
    const rspamd = this.rspamd ? `\n${this.rspamd.logs()}` : '';
    return `--- postfix ---\n${readLog(this.postfixLog)}\n--- dovecot ---\n${readLog(this.dovecotLog)}${rspamd}`;
  }

  /** Waits until Postfix's queue is empty (every message delivered or bounced). */
  async drainQueue(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const queue = spawnSync('/usr/sbin/postqueue', ['-c', path.join(this.dir, 'postfix'), '-j'], {
        encoding: 'utf8',
      });
      if (queue.status === 0 && queue.stdout.trim() === '') return;
      if (Date.now() > deadline)
        throw new Error(`Postfix's queue did not empty:\n${queue.stdout}\n${this.logs()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Stops the daemons together (each waits on its own shutdown; one after the other took seconds). */
  async close(): Promise<void> {
    await Promise.all([
      this.postfixRunning ? stopPostfix(path.join(this.dir, 'postfix')) : undefined,
      // OpenDKIM's milter library waits seconds for its threads on SIGTERM; nothing of it is kept.
      stopChildren([this.opendkim], 'SIGKILL'),
      this.rspamd?.close(),
    ]);
    // Dovecot last: its master waits seconds for the connections Postfix holds to it.
    await stopChildren([this.dovecot]);
    this.postfixRunning = false;
    this.dovecot = undefined;
    this.opendkim = undefined;
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.dkimBase, { recursive: true, force: true });
  }
}
