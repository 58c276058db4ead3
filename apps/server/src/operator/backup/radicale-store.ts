import { spawnSync } from 'node:child_process';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { DIRECTORY_COLLECTION } from '../install/dav-files.ts';
import type { HostLayout } from '../host-layout.ts';
import { OperatorProblem } from '../operator-problem.ts';

/**
 * Radicale's storage (calendars and address books: one file per event or contact below
 * `collection-root/<user>/<collection>/`) read and written consistently. Radicale takes a shared
 * or exclusive flock on `.Radicale.lock` at the storage's top around every request that reads or
 * writes (radicale/storage/multifilesystem/lock.py): the backup copies while holding it shared,
 * so no PUT lands halfway, and restore replaces the files while holding it exclusive. flock(1)
 * holds it for the copy, since Node has no flock of its own.
 *
 * Left out: `.Radicale.cache` directories (caches Radicale rebuilds), its temporary files, and
 * each account's `directory` collection, the organisation's address book that Atrium writes (and
 * soon serves) from the database.
 */
const LOCK = '.Radicale.lock';
const TOP = 'collection-root';
/** How long a backup or restore waits for Radicale's requests to let go of the lock. */
const LOCK_WAIT_SECONDS = 60;
/** flock's exit status when the wait ran out (EX_TEMPFAIL), told apart from the command's own. */
const LOCK_TIMEOUT = 75;

/** The storage Radicale uses: its configuration's filesystem_folder, else where install puts it. */
export function radicaleStorage(layout: HostLayout): string {
  let config: string;
  try {
    config = readFileSync(layout.radicaleConfig, 'utf8');
  } catch {
    return layout.radicaleStorage;
  }
  const folder = /^\s*filesystem_folder\s*=\s*(.+?)\s*$/m.exec(config)?.[1];
  return folder ?? layout.radicaleStorage;
}

/** Copies `storage`'s collections into `target` (owners and modes kept); false when there are none. */
export function stageCalendars(storage: string, target: string): boolean {
  if (!existsSync(path.join(storage, TOP))) return false;
  const top = statSync(storage);
  mkdirSync(target, { mode: 0o750 });
  chownSync(target, top.uid, top.gid);
  underLock(storage, 'shared', ['cp', '-a', '--', path.join(storage, TOP), path.join(target, TOP)]);
  prune(path.join(target, TOP));
  return true;
}

/**
 * `storage`'s collections replaced by the snapshot's (`from`), while Radicale waits, and given to
 * the radicale user: a new host's radicale may have another uid than the old one's.
 */
export function restoreCalendars(from: string, storage: string, owner: { uid: number; gid: number }): void {
  if (!existsSync(storage)) {
    mkdirSync(storage, { recursive: true, mode: 0o750 });
    chownSync(storage, owner.uid, owner.gid);
  }
  const script = 'rm -rf -- "$1/collection-root" && cp -a -- "$2/collection-root" "$1/collection-root"';
  underLock(storage, 'exclusive', ['sh', '-c', script, 'restore', storage, from]);
  const walk = (at: string) => {
    chownSync(at, owner.uid, owner.gid);
    if (statSync(at).isDirectory()) for (const name of readdirSync(at)) walk(path.join(at, name));
  };
  walk(path.join(storage, TOP));
}

function underLock(storage: string, mode: 'shared' | 'exclusive', command: string[]): void {
  const lock = path.join(storage, LOCK);
  if (!existsSync(lock)) {
    // Made as Radicale would make it: root's file would keep Radicale from opening it ("w+").
    closeSync(openSync(lock, 'a', 0o640));
    const top = statSync(storage);
    chownSync(lock, top.uid, top.gid);
  }
  const run = spawnSync(
    'flock',
    [
      `--${mode}`,
      '--wait',
      String(LOCK_WAIT_SECONDS),
      '--conflict-exit-code',
      String(LOCK_TIMEOUT),
      lock,
      ...command,
    ],
    { encoding: 'utf8' },
  );
  if (run.status === LOCK_TIMEOUT) {
    throw new OperatorProblem(
      `Radicale's storage ${storage}: its lock ${lock} stayed held for ${LOCK_WAIT_SECONDS} s`,
    );
  }
  if (run.status !== 0) {
    throw new OperatorProblem(
      `Radicale's storage ${storage}: ${(run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n')[0]}`,
    );
  }
}

/**
 * Caches, temporary files and the organisation's directory out of a staged copy: depth 0 is the
 * accounts (`collection-root/<user>`), depth 1 their collections.
 */
function prune(dir: string, depth = 0): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    if (
      entry.name === '.Radicale.cache' ||
      entry.name.startsWith('.Radicale.tmp') ||
      (depth === 1 && entry.isDirectory() && entry.name === DIRECTORY_COLLECTION)
    ) {
      rmSync(at, { recursive: true, force: true });
    } else if (entry.isDirectory()) {
      prune(at, depth + 1);
    }
  }
}
