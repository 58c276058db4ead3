import { spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RspamdOptions } from '../../src/modules/mail/config/rspamd-config.ts';
import { accepts, readLog, spawnDaemon, uidOf } from './daemons.ts';
import { freePort } from './free-port.ts';

const RSPAMD = '/usr/bin/rspamd';
const REDIS = '/usr/bin/redis-server';
/**
 * rspamd's compiled regular expressions, kept between test runs (rspamd writes each file under a
 * temporary name and renames it, so two instances share it safely): a first start compiles them
 * for up to a minute on a busy machine, later ones load them in a second.
 */
const HYPERSCAN_CACHE = '/var/cache/atrium-test-rspamd';
/** The password the tests' rspamd controller takes (production derives it from ATRIUM_SECRET). */
export const TEST_CONTROLLER_PASSWORD = 'test-controller-password';

/**
 * Debian's rspamd and Redis on free loopback ports, as their services run them: each as its own
 * user from the start (rspamd.service and redis-server.service set User=), never root. rspamd
 * reads Debian's /etc/rspamd/rspamd.conf with LOCAL_CONFDIR pointing at the local.d and override.d
 * that mail-config wrote (TestMailServers' directory), its data, pid and log in `dir`.
 */
export class TestRspamd {
  ports = { rspamd: 0, controller: 0, redis: 0 };
  private rspamd: ChildProcess | undefined;
  private redis: ChildProcess | undefined;
  private dir = '';

  private readonly settings: { dnsServer: string; greylistDelay: number };

  private constructor(settings: { dnsServer: string; greylistDelay: number }) {
    this.settings = settings;
  }

  static async prepare(settings: { dnsServer: string; greylistDelay?: number }): Promise<TestRspamd> {
    const missing = [RSPAMD, REDIS].filter((file) => !existsSync(file));
    if (missing.length > 0) {
      throw new Error(`The spam tests need ${missing.join(' and ')}: apt-get install rspamd redis-server`);
    }
    const servers = new TestRspamd({
      dnsServer: settings.dnsServer,
      greylistDelay: settings.greylistDelay ?? 300,
    });
    for (const name of Object.keys(servers.ports) as Array<keyof TestRspamd['ports']>) {
      servers.ports[name] = await freePort();
    }
    return servers;
  }

  /** What mail-config is given for this rspamd (MailConfigOptions.rspamd). */
  get options(): RspamdOptions {
    return {
      port: this.ports.rspamd,
      controllerPort: this.ports.controller,
      redis: { host: '127.0.0.1', port: this.ports.redis },
      controllerPassword: TEST_CONTROLLER_PASSWORD,
      dnsServers: [this.settings.dnsServer],
      greylistDelay: this.settings.greylistDelay,
      hyperscanCache: HYPERSCAN_CACHE,
    };
  }

  get log() {
    return path.join(this.dir, 'log', 'rspamd.log');
  }

  /** Redis, then rspamd reading `confDir` (mail-config's `rspamd/`); `dir` holds their data. */
  async start(confDir: string, dir: string): Promise<void> {
    this.dir = dir;
    // Both daemons' users walk through it to their own directories.
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    const rspamdUser = uidOf('_rspamd');
    const redisUser = uidOf('redis');
    mkdirSync(HYPERSCAN_CACHE, { recursive: true, mode: 0o750 });
    chownSync(HYPERSCAN_CACHE, rspamdUser.uid, rspamdUser.gid);
    for (const [sub, owner] of [
      ['redis', redisUser],
      ['db', rspamdUser],
      ['run', rspamdUser],
      ['log', rspamdUser],
    ] as const) {
      mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o750 });
      chownSync(path.join(dir, sub), owner.uid, owner.gid);
    }
    // rspamd's controller file holds its password: root's and rspamd's group's only, as install
    // leaves it; rspamd reads it as _rspamd through the group.
    const controllerFile = path.join(confDir, 'override.d', 'worker-controller.inc');
    chownSync(controllerFile, 0, rspamdUser.gid);
    chmodSync(controllerFile, 0o640);

    const redis = spawnDaemon('/usr/bin/setpriv', [
      ...asUser('redis'),
      REDIS,
      '--port',
      String(this.ports.redis),
      '--bind',
      '127.0.0.1',
      '--dir',
      path.join(dir, 'redis'),
      '--save',
      '',
      '--daemonize',
      'no',
    ]);
    this.redis = redis.child;
    await until(
      redis,
      'redis-server',
      () => accepts(this.ports.redis),
      () => redis.output(),
    );

    const rspamd = spawnDaemon('/usr/bin/setpriv', [
      ...asUser('_rspamd'),
      RSPAMD,
      '-f',
      '-c',
      '/etc/rspamd/rspamd.conf',
      `--var=LOCAL_CONFDIR=${confDir}`,
      `--var=DBDIR=${path.join(dir, 'db')}`,
      `--var=RUNDIR=${path.join(dir, 'run')}`,
      `--var=LOGDIR=${path.join(dir, 'log')}`,
    ]);
    this.rspamd = rspamd.child;
    await until(
      rspamd,
      'rspamd',
      async () => (await accepts(this.ports.rspamd)) && (await this.ping()),
      () => `${rspamd.output()}\n${readLog(this.log)}`,
    );
  }

  /** The controller's /ping, as doctor asks it. */
  async ping(): Promise<boolean> {
    try {
      const response = await fetch(`http://127.0.0.1:${this.ports.controller}/ping`);
      return response.ok && (await response.text()).trim() === 'pong';
    } catch {
      return false;
    }
  }

  /** The controller's statistics (scanned, learned, actions…), with the password. */
  async stat(): Promise<{ scanned: number; actions: Record<string, number> }> {
    const response = await fetch(`http://127.0.0.1:${this.ports.controller}/stat`, {
      headers: { Password: TEST_CONTROLLER_PASSWORD },
    });
    if (!response.ok) throw new Error(`rspamd /stat: ${response.status} ${await response.text()}`);
    return (await response.json()) as { scanned: number; actions: Record<string, number> };
  }

  /** Resident memory (KiB) of rspamd's processes and of Redis, for the benchmark. */
  memory(): { rspamdKb: number; redisKb: number } {
    const rss = (pid: number | undefined) => {
      if (!pid) return 0;
      const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean)
        .map(Number);
      return [pid, ...children].reduce((sum, p) => sum + statusKb(p), 0);
    };
    // setpriv execs the daemon, so the child's pid is the daemon's own.
    return { rspamdKb: rss(this.rspamd?.pid), redisKb: rss(this.redis?.pid) };
  }

  logs(): string {
    return `--- rspamd ---\n${readLog(this.log)}`;
  }

  async close(): Promise<void> {
    for (const child of [this.rspamd, this.redis]) {
      if (child && child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
    }
    this.rspamd = undefined;
    this.redis = undefined;
  }
}

/** setpriv's arguments that make the rest of the command run as `user` with its groups. */
const asUser = (user: string) => [`--reuid=${user}`, `--regid=${user}`, '--init-groups', '--'];

/** VmRSS of a process, in KiB (0 once it is gone). */
function statusKb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

async function until(
  daemon: ReturnType<typeof spawnDaemon>,
  name: string,
  ready: () => Promise<boolean>,
  said: () => string,
): Promise<void> {
  // rspamd compiles its regular expressions (hyperscan) at a first start: seconds on a busy machine.
  const deadline = Date.now() + 60_000;
  while (!(await ready())) {
    if (daemon.exited()) throw new Error(`${name} exited (${daemon.child.exitCode}):\n${said()}`);
    if (Date.now() > deadline) throw new Error(`${name} did not answer within 60 s:\n${said()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
