import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryLock } from './backup-lock.ts';

const dirs: string[] = [];
const lockFile = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lock-'));
  dirs.push(dir);
  return path.join(dir, 'dovecot-uidlist.lock');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A pid no process has any more: a child that has exited. */
const deadPid = () => spawnSync('true').pid!;

describe('lock files a killed owner cannot leave blocking', () => {
  it('holds pid:host, as Dovecot writes and reads its dotlocks', () => {
    const file = lockFile();
    expect(tryLock(file, 120_000)).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid}:${hostname()}\n`);
  });

  it("leaves a live owner's lock, and takes one whose owner is gone", () => {
    const file = lockFile();
    writeFileSync(file, `${process.pid}:${hostname()}\n`);
    expect(tryLock(file, 0)).toMatchObject({ pid: process.pid });
    const dead = deadPid();
    writeFileSync(file, `${dead}:${hostname()}\n`);
    expect(tryLock(file, Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid}:${hostname()}\n`);
  });

  it('takes a lock whose pid now belongs to a process started after it (a reboot reused it)', async () => {
    const file = lockFile();
    const other = spawn('sleep', ['30']);
    try {
      writeFileSync(file, `${other.pid}:${hostname()}\n`);
      const hourAgo = new Date(Date.now() - 3600_000);
      utimesSync(file, hourAgo, hourAgo);
      expect(tryLock(file, Number.POSITIVE_INFINITY)).toBeUndefined();
    } finally {
      other.kill();
    }
  });

  it("judges a lock without an owner (another program's) by its age", () => {
    const file = lockFile();
    writeFileSync(file, '');
    expect(tryLock(file, 120_000)).toMatchObject({ pid: 0 });
    const old = new Date(Date.now() - 180_000);
    utimesSync(file, old, old);
    expect(tryLock(file, 120_000)).toBeUndefined();
  });
});
