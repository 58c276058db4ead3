import { spawn, spawnSync } from 'node:child_process';
import { chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OperatorProblem } from '../operator-problem.ts';

/**
 * rspamd's learned data — the Bayes statistics users teach by moving mail into and out of Junk,
 * and greylisting's memory — kept in the host's Redis (install: Debian's redis-server, rspamd's
 * only user of it). The backup stages the whole of Redis's data as one RDB file, taken the way a
 * replica takes it (`redis-cli --rdb`): consistent at one instant, while Redis and rspamd go on,
 * with no change to Redis's configuration. Restore gives it back without stopping Redis: a
 * throwaway redis-server (user redis, loopback, a free port) loads the file, the host's Redis
 * becomes its replica for the one full sync that replaces its data, then is made a primary again.
 * The same steps work on a host and under `install --root`, where the Redis is the test's own.
 */
export interface RedisAddress {
  host: string;
  port: number;
}

/** How long the copy to or from Redis may take: a Bayes database is tens of megabytes at most. */
const REDIS_WAIT_MS = 120_000;

/**
 * Redis's data into `file`; a line saying why not when Redis does not answer. The backup goes
 * on without it: mail, calendars and the database matter more than what rspamd learned.
 */
export function stageRedis(redis: RedisAddress, file: string): string | undefined {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const run = cli(redis, ['--rdb', file]);
  if (run.ok && existsSync(file)) return undefined;
  rmSync(file, { force: true });
  return (
    `Redis ${redis.host}:${redis.port}: ${run.output || 'no dump'} — rspamd's learned data is not in this ` +
    'snapshot (is redis-server running?)'
  );
}

/** Replaces the Redis at `redis` with the data in `file` (stageRedis's); a line saying what was done. */
export async function restoreRedis(redis: RedisAddress, file: string): Promise<string> {
  const where = `${redis.host}:${redis.port}`;
  const ping = cli(redis, ['PING']);
  if (ping.output !== 'PONG') {
    throw new OperatorProblem(
      `Redis ${where}: ${ping.output || 'no answer'} — rspamd's learned data was not restored; start Redis and run restore again`,
    );
  }
  const owner = statSync('/proc/self').uid === 0 ? userIds('redis') : undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-redis-'));
  copyFileSync(file, path.join(dir, 'dump.rdb'));
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(path.join(dir, 'dump.rdb'), owner.uid, owner.gid);
  }
  const source = { host: '127.0.0.1', port: await freeLoopbackPort() };
  const child = spawn(
    '/usr/bin/redis-server',
    [
      '--port',
      String(source.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--dbfilename',
      'dump.rdb',
      '--save',
      '',
      '--appendonly',
      'no',
      // Redis 7 waits 5 s for more replicas before a full sync; there is only the one.
      '--repl-diskless-sync-delay',
      '0',
      '--daemonize',
      'no',
    ],
    { stdio: 'ignore', ...(owner ?? {}) },
  );
  try {
    // It answers LOADING until the file is read, then PONG.
    await until(`the snapshot's Redis data (${file})`, () => {
      if (child.exitCode !== null) {
        throw new OperatorProblem(`Restore: redis-server for ${file} ended (exit ${child.exitCode})`);
      }
      return cli(source, ['PING']).output === 'PONG';
    });
    const keys = cli(source, ['DBSIZE']).output;
    replicaOf(redis, `${source.host} ${source.port}`);
    try {
      await until(`Redis ${where} to copy the snapshot's data`, () => {
        const info = cli(redis, ['INFO', 'replication']).output;
        return /master_link_status:up/.test(info) && /master_sync_in_progress:0/.test(info);
      });
    } finally {
      replicaOf(redis, 'NO ONE');
    }
    // Written to its own file now rather than at its next save point.
    cli(redis, ['BGSAVE']);
    return `Redis ${where}: rspamd's learned data restored (${keys} keys)`;
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

function replicaOf(redis: RedisAddress, target: string): void {
  const run = cli(redis, ['REPLICAOF', ...target.split(' ')]);
  if (!run.output.startsWith('OK')) {
    throw new OperatorProblem(`Redis ${redis.host}:${redis.port}: REPLICAOF ${target}: ${run.output}`);
  }
}

function cli(redis: RedisAddress, args: string[]): { ok: boolean; output: string } {
  const run = spawnSync('redis-cli', ['-h', redis.host, '-p', String(redis.port), ...args], {
    encoding: 'utf8',
    timeout: REDIS_WAIT_MS,
  });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? run.error.message : ''}`.trim();
  // redis-cli exits 0 on an error reply too: its text starts with ERR, or says it could not connect.
  return { ok: run.status === 0 && !/^(ERR|Could not connect|Error)/m.test(output), output };
}

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + REDIS_WAIT_MS;
  while (!done()) {
    if (Date.now() > deadline) {
      throw new OperatorProblem(`Restore: waited ${REDIS_WAIT_MS / 1000} s for ${what}`);
    }
    await sleep(100);
  }
}

function userIds(user: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync('id', [flag, user], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** A loopback port no one listens on, for the throwaway redis-server. */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
