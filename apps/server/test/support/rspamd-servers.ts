import type { ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { RspamdOptions } from '../../src/modules/mail/config/rspamd-config.ts';
import type { HostLayout } from '../../src/operator/host-layout.ts';
import { rspamdDir, rspamdPaths } from '../../src/operator/install/rspamd-files.ts';
import { accepts, readLog, spawnDaemon, stopChildren, uidOf } from './daemons.ts';
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

    const redis = spawnRedis(this.ports.redis, path.join(dir, 'redis'));
    this.redis = redis.child;
    await untilReady(
      redis,
      'redis-server',
      () => accepts(this.ports.redis),
      () => redis.output(),
    );
    const rspamd = spawnRspamd({
      confDir,
      db: path.join(dir, 'db'),
      run: path.join(dir, 'run'),
      logDir: path.join(dir, 'log'),
    });
    this.rspamd = rspamd.child;
    await untilReady(
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

  /** The pids of rspamd's main process and of Redis (setpriv execs them), for the benchmark. */
  processes(): { rspamd?: number; redis?: number } {
    return { rspamd: this.rspamd?.pid, redis: this.redis?.pid };
  }

  logs(): string {
    return `--- rspamd ---\n${readLog(this.log)}`;
  }

  async close(): Promise<void> {
    await stopChildren([this.rspamd, this.redis]);
    this.rspamd = undefined;
    this.redis = undefined;
  }
}

/** setpriv's arguments that make the rest of the command run as `user` with its groups. */
const asUser = (user: string) => [`--reuid=${user}`, `--regid=${user}`, '--init-groups', '--'];

/**
 * Debian's redis-server as redis-server.service runs it (user redis), on loopback `port` with its
 * data in `dir` (redis's own), no snapshots: the tests' data is thrown away.
 */
export function spawnRedis(port: number, dir: string) {
  return spawnDaemon('/usr/bin/setpriv', [
    ...asUser('redis'),
    REDIS,
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--daemonize',
    'no',
  ]);
}

/**
 * Debian's rspamd as rspamd.service runs it (user _rspamd, in the foreground) from Debian's
 * /etc/rspamd/rspamd.conf, with the local.d and override.d of `confDir` and its data, pid file
 * and log where the test says.
 */
export function spawnRspamd(where: { confDir: string; db: string; run: string; logDir: string }) {
  return spawnDaemon('/usr/bin/setpriv', [
    ...asUser('_rspamd'),
    RSPAMD,
    '-f',
    '-c',
    '/etc/rspamd/rspamd.conf',
    `--var=LOCAL_CONFDIR=${where.confDir}`,
    `--var=DBDIR=${where.db}`,
    `--var=RUNDIR=${where.run}`,
    `--var=LOGDIR=${where.logDir}`,
  ]);
}

/**
 * Copies the compiled regular expressions the spam tests' rspamd keeps (HYPERSCAN_CACHE) into a
 * fresh database directory, so an installed host's rspamd, which keeps them there as on a host,
 * loads them instead of compiling them for up to a minute.
 */
export function seedHyperscanCache(db: string): void {
  if (!existsSync(HYPERSCAN_CACHE)) return;
  const owner = uidOf('_rspamd');
  for (const name of readdirSync(HYPERSCAN_CACHE)) {
    if (!/\.hs/.test(name)) continue;
    const target = path.join(db, name);
    try {
      copyFileSync(path.join(HYPERSCAN_CACHE, name), target);
    } catch (error) {
      // Another test's rspamd may be rewriting the cache: a file gone is compiled again, not copied.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    chownSync(target, owner.uid, owner.gid);
  }
}

/**
 * Redis and rspamd on a host installed with `install --root DIR`, as Debian's services run them
 * (users redis and _rspamd, never root), from the files install wrote below the root: Redis on
 * the port install gave rspamd (Debian's redis.conf says 6379 on a host; install writes no Redis
 * configuration), rspamd reading Debian's rspamd.conf with install's local.d and override.d.
 */
export async function startInstalledRspamd(
  layout: HostLayout,
  ports: { rspamd: number; controller: number; redis: number },
): Promise<ChildProcess[]> {
  const where = rspamdPaths(layout);
  const redisDir = path.join(layout.root, 'var/lib/redis');
  const rspamdUser = uidOf('_rspamd');
  const redisUser = uidOf('redis');
  for (const [dir, owner] of [
    [where.db, rspamdUser],
    [where.run, rspamdUser],
    [path.dirname(where.log), rspamdUser],
    [redisDir, redisUser],
  ] as const) {
    mkdirSync(dir, { recursive: true, mode: 0o750 });
    chownSync(dir, owner.uid, owner.gid);
  }
  seedHyperscanCache(where.db);
  const redis = spawnRedis(ports.redis, redisDir);
  await untilReady(
    redis,
    'redis-server',
    () => accepts(ports.redis),
    () => redis.output(),
  );
  const rspamd = spawnRspamd({
    confDir: rspamdDir(layout),
    db: where.db,
    run: where.run,
    logDir: path.dirname(where.log),
  });
  try {
    await untilReady(
      rspamd,
      'rspamd',
      async () => (await accepts(ports.rspamd)) && (await accepts(ports.controller)),
      () => `${rspamd.output()}\n${readLog(where.log)}`,
    );
  } catch (error) {
    redis.child.kill('SIGTERM');
    throw error;
  }
  return [rspamd.child, redis.child];
}

export async function untilReady(
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
