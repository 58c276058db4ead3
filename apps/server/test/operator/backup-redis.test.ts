import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreRedis, stageRedis } from '../../src/operator/backup/redis-store.ts';
import { accepts, stopChildren, uidOf } from '../support/daemons.ts';
import { freePort } from '../support/free-port.ts';
import { spawnRedis, untilReady } from '../support/rspamd-servers.ts';

/**
 * rspamd's learned data through a backup and a restore (redis-store.ts), against Debian's Redis
 * run as its service runs it (user redis, loopback): the keys rspamd's Bayes keeps — the learn
 * counts per class and a token's counts — staged with `redis-cli --rdb`, then given back to a
 * Redis that lost them and learned something else meanwhile.
 */

describe('rspamd learned data in Redis: backup and restore', () => {
  let top = '';
  let redis: ReturnType<typeof spawnRedis>;
  const address = { host: '127.0.0.1', port: 0 };
  const cli = (...args: string[]) =>
    spawnSync('redis-cli', ['-p', String(address.port), ...args], { encoding: 'utf8' }).stdout.trim();

  beforeAll(async () => {
    top = mkdtempSync(path.join(tmpdir(), 'backup-redis-'));
    // redis walks through it to its own directory.
    chmodSync(top, 0o755);
    const data = path.join(top, 'redis');
    mkdirSync(data, { mode: 0o750 });
    chownSync(data, uidOf('redis').uid, uidOf('redis').gid);
    address.port = await freePort();
    redis = spawnRedis(address.port, data);
    await untilReady(
      redis,
      'redis-server',
      () => accepts(address.port),
      () => redis.output(),
    );
  });

  afterAll(async () => {
    if (redis) await stopChildren([redis.child]);
    rmSync(top, { recursive: true, force: true });
  });

  it('stages what rspamd learned and puts it back, replacing what came after', async () => {
    // As rspamd's Bayes writes them: per class a hash with its learn count, per token a hash of counts.
    cli('HSET', 'BAYES_SPAM', 'learns', '3');
    cli('HSET', 'BAYES_HAM', 'learns', '5');
    cli('HSET', 'RS8723548102', 'S', '2', 'H', '1');
    const dump = path.join(top, 'staging', 'redis', 'dump.rdb');
    expect(stageRedis(address, dump)).toBeUndefined();
    expect(existsSync(dump)).toBe(true);

    cli('FLUSHALL');
    cli('HSET', 'BAYES_SPAM', 'learns', '1');
    cli('SET', 'rg_after_backup', '1');

    const line = await restoreRedis(address, dump);
    expect(line).toBe(`Redis 127.0.0.1:${address.port}: rspamd's learned data restored (3 keys)`);
    expect(cli('HGET', 'BAYES_SPAM', 'learns')).toBe('3');
    expect(cli('HGET', 'BAYES_HAM', 'learns')).toBe('5');
    expect(cli('HGETALL', 'RS8723548102').split('\n')).toEqual(['S', '2', 'H', '1']);
    expect(cli('EXISTS', 'rg_after_backup')).toBe('0');
    // A primary again, which rspamd can go on teaching.
    expect(cli('INFO', 'replication')).toMatch(/role:master/);
    expect(cli('HINCRBY', 'BAYES_SPAM', 'learns', '1')).toBe('4');
  });

  it('a Redis that does not answer: the backup says so in one line and goes on', () => {
    const dump = path.join(top, 'unreachable', 'dump.rdb');
    const line = stageRedis({ host: '127.0.0.1', port: 1 }, dump);
    expect(line).toMatch(/^Redis 127\.0\.0\.1:1: .*rspamd's learned data is not in this snapshot/);
    expect(line?.split('\n')).toHaveLength(1);
    expect(existsSync(dump)).toBe(false);
  });
});
