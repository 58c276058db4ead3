import { closeSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { OperatorProblem } from '../operator-problem.ts';

/**
 * Lock files that a killed run (kill -9, a reboot during the nightly backup) cannot leave
 * blocking the next one: each holds its owner's `pid:host`, the form of Dovecot's own dotlocks,
 * and one whose owner no longer runs on this host is taken over. Dovecot reads the same content
 * and treats such a lock of ours as stale too.
 */
export interface LockOwner {
  pid: number;
  host: string;
  /** When the lock was taken (its file's time). */
  since: Date;
  /** What Atrium's run lock was taken for: backup or verify. */
  operation?: string;
}

function readOwner(file: string): LockOwner | undefined {
  let text: string;
  let since: Date;
  try {
    text = readFileSync(file, 'utf8');
    since = statSync(file).mtime;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const match = /^(\d+):([^\s]*)(?:\s+(\S+))?/.exec(text.trim());
  if (!match) return { pid: 0, host: '', since };
  return { pid: Number(match[1]), host: match[2]!, since, operation: match[3] };
}

export function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When process `pid` started, from /proc (its start in clock ticks after boot, and the boot
 * time); undefined where /proc does not say.
 */
function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    // USER_HZ is 100 on every Linux architecture Debian builds for.
    return Number.isFinite(ticks) && boot ? (boot + ticks / 100) * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock's owner still runs: its pid is alive and started before the lock was written.
 * After a reboot the pid a killed backup had may belong to another process, which must not keep
 * every later backup waiting.
 */
function ownerRuns(owner: LockOwner): boolean {
  if (!isAlive(owner.pid)) return false;
  const started = processStart(owner.pid);
  return started === undefined || started <= owner.since.getTime() + 2000;
}

/**
 * Whether a lock's owner is gone: it names a process of this host that no longer runs, or it
 * names none (an older lock, a torn write) and is older than `staleAfterMs`.
 */
export function isStale(owner: LockOwner, staleAfterMs: number, now = Date.now()): boolean {
  if (owner.pid > 0 && owner.host === hostname()) return !ownerRuns(owner);
  return now - owner.since.getTime() > staleAfterMs;
}

/**
 * Makes `file` exclusively with this process as its owner. A stale lock is removed and taken;
 * a live owner's lock is left and its owner returned.
 */
export function tryLock(file: string, staleAfterMs: number, tag = ''): LockOwner | undefined {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, `${process.pid}:${hostname()}${tag ? ` ${tag}` : ''}\n`);
      } finally {
        closeSync(fd);
      }
      return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(file);
    if (owner && !isStale(owner, staleAfterMs)) return owner;
    rmSync(file, { force: true });
  }
  return readOwner(file);
}

/** Atrium's run lock: one backup or verify at a time on a host. */
export const runLockFile = (layout: HostLayout) => path.join(layout.backupDir, 'backup.lock');

/** A run lock whose owner is gone (killed, or the host stopped): what doctor reports. */
export function interruptedRun(layout: HostLayout): LockOwner | undefined {
  const owner = readOwner(runLockFile(layout));
  return owner && owner.pid > 0 && owner.host === hostname() && !ownerRuns(owner) ? owner : undefined;
}

/**
 * Takes the run lock for `operation`, or refuses in one line while another backup or verify runs.
 * When the previous owner died holding it, `cleanUp` runs first (its staging and scratch
 * directories, restic's stale locks): nothing of ours is alive to need them.
 */
export function takeRunLock(layout: HostLayout, operation: string, cleanUp: () => void): () => void {
  const file = runLockFile(layout);
  // Never by age: a first backup of a large mail store runs for hours.
  const owner = tryLock(file, Number.POSITIVE_INFINITY, operation);
  if (owner) {
    throw new OperatorProblem(
      `Backup: another ${owner.operation ?? 'backup'} runs (pid ${owner.pid}, since ${owner.since.toISOString()}) — wait for it to finish`,
    );
  }
  cleanUp();
  return () => rmSync(file, { force: true });
}

/**
 * What a killed backup or verify leaves below the backup directory: its staging directory and a
 * verify's scratch space (`verify-…`; restore's own, `restore-…`, is not ours to remove).
 */
export function removeLeftovers(layout: HostLayout): void {
  let names: string[];
  try {
    names = readdirSync(layout.backupDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === 'staging' || name.startsWith('verify-')) {
      rmSync(path.join(layout.backupDir, name), { recursive: true, force: true });
    }
  }
}
