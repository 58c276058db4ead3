import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import type { TableDigest } from '../../db/logical-dump.ts';
import { OperatorProblem } from '../operator-problem.ts';
import { tryLock } from './backup-lock.ts';

/**
 * Dovecot's mail store (Maildir++ below the mail root: <org>/<user>/Maildir, each folder a
 * `.Name` directory beside cur/new/tmp) read one mailbox at a time, consistently.
 *
 * Each mailbox is staged while holding its `dovecot-uidlist.lock`, the dotlock Dovecot itself
 * takes before it moves a delivered or appended message into new/ or cur/ and gives it a UID:
 * with it held, no message arrives halfway, and the staged dovecot-uidlist names exactly the
 * staged messages. Messages are hard links (no copy; a Maildir message file never changes, only
 * its name, when its flags do), so staging costs no space on the mail root's file system. A flag
 * change renaming a file while it is staged is seen as the file being gone: the directory is
 * read again. Dovecot's index files are left out: they are caches Dovecot rebuilds from the
 * Maildir, and copying them while Dovecot writes them could give a torn index.
 *
 * Why not `doveadm backup`: it needs each user's userdb entry, which Atrium answers only per
 * address (its dict userdb cannot list users), and it would copy every message every time.
 */
const LOCK = 'dovecot-uidlist.lock';
/**
 * Sieve scripts: what Pigeonhole keeps in each user's mail home (`<org>/<user>`, beside Maildir/)
 * by default — `sieve/` with the scripts and `.dovecot.sieve`, the link to the active one. They
 * are outside every mailbox, so they are staged by this list (ManageSieve writes a script to a
 * new name and renames it, so a copy never holds half of one).
 */
export const SIEVE_ENTRIES = ['sieve', '.dovecot.sieve'];
const MESSAGE_DIRS = ['cur', 'new'];
const isIndexFile = (name: string) =>
  name.startsWith('dovecot.index') || name.startsWith('dovecot.list.index');

/** Mailbox directories (those with a cur/), relative to `root`, sorted. */
export function mailboxes(root: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    const dir = path.join(root, relative);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((e) => e.isDirectory() && e.name === 'cur')) found.push(relative);
    for (const e of entries) {
      if (e.isDirectory() && !['cur', 'new', 'tmp'].includes(e.name)) walk(path.join(relative, e.name));
    }
  };
  if (existsSync(root)) walk('');
  return found.sort();
}

/** Stages every mailbox below `mailRoot` into `target`, with owners and modes; returns their digests. */
export async function stageMail(mailRoot: string, target: string): Promise<Record<string, TableDigest>> {
  copyDirMeta(mailRoot, target);
  const digests: Record<string, TableDigest> = {};
  for (const mailbox of mailboxes(mailRoot)) {
    // Parent directories (organisation, user, Maildir) with their owners and modes.
    let relative = '';
    for (const part of mailbox.split(path.sep).filter(Boolean)) {
      relative = path.join(relative, part);
      if (!existsSync(path.join(target, relative)))
        copyDirMeta(path.join(mailRoot, relative), path.join(target, relative));
    }
    await withMailboxLock(path.join(mailRoot, mailbox), () => {
      stageMailbox(path.join(mailRoot, mailbox), path.join(target, mailbox));
    });
    digests[mailbox || '.'] = mailboxDigest(path.join(target, mailbox));
  }
  return digests;
}

/** Users' Sieve entries below `root`, relative to it (`<org>/<user>/sieve`…), sorted. */
export function sieveFiles(root: string): string[] {
  const found: string[] = [];
  for (const org of subdirectories(root)) {
    for (const user of subdirectories(path.join(root, org))) {
      for (const name of SIEVE_ENTRIES) {
        if (lexists(path.join(root, org, user, name))) found.push(path.join(org, user, name));
      }
    }
  }
  return found.sort();
}

/** Copies the Sieve entries (sieveFiles) of `mailRoot` into `target`, owners and modes kept. */
export function stageSieveScripts(mailRoot: string, target: string): number {
  const found = sieveFiles(mailRoot);
  for (const entry of found) {
    const home = path.dirname(entry);
    if (!existsSync(path.join(target, home))) {
      copyDirMeta(path.join(mailRoot, path.dirname(home)), path.join(target, path.dirname(home)));
      copyDirMeta(path.join(mailRoot, home), path.join(target, home));
    }
    const run = spawnSync('cp', ['-a', '--', path.join(mailRoot, entry), path.join(target, entry)], {
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`Sieve scripts ${entry}: ${run.stderr.trim()}`);
  }
  return found.length;
}

function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

function lexists(at: string): boolean {
  try {
    lstatSync(at);
    return true;
  } catch {
    return false;
  }
}

export function mailDigests(root: string): Record<string, TableDigest> {
  return Object.fromEntries(mailboxes(root).map((m) => [m || '.', mailboxDigest(path.join(root, m))]));
}

/** Messages (cur/ and new/) by name, which carries the flags, and content; order-free. */
export function mailboxDigest(dir: string): TableDigest {
  const entries: string[] = [];
  for (const sub of MESSAGE_DIRS) {
    const at = path.join(dir, sub);
    if (!existsSync(at)) continue;
    for (const name of readdirSync(at)) {
      const content = createHash('sha256')
        .update(readFileSync(path.join(at, name)))
        .digest('hex');
      entries.push(`${sub}/${name} ${content}`);
    }
  }
  const hash = createHash('sha256');
  for (const entry of entries.sort()) hash.update(entry).update('\n');
  return { rows: entries.length, sha256: hash.digest('hex') };
}

function stageMailbox(from: string, to: string): void {
  copyDirMeta(from, to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'tmp') copyDirMeta(source, path.join(to, entry.name));
      else if (MESSAGE_DIRS.includes(entry.name)) stageMessages(source, path.join(to, entry.name));
      // Other directories are subfolders, staged as mailboxes of their own.
    } else if (entry.isFile() && entry.name !== LOCK && !isIndexFile(entry.name)) {
      copyFileMeta(source, path.join(to, entry.name));
    }
  }
}

function stageMessages(from: string, to: string): void {
  copyDirMeta(from, to);
  for (let attempt = 0; ; attempt++) {
    let renamed = false;
    for (const name of readdirSync(from)) {
      if (existsSync(path.join(to, name))) continue;
      try {
        linkOrCopy(path.join(from, name), path.join(to, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        renamed = true;
      }
    }
    if (!renamed) break;
    if (attempt > 20) throw new Error(`${from}: messages kept changing names while staged`);
    // A flag change renamed a message: its new name is read again, the old one dropped.
    for (const name of readdirSync(to)) if (!existsSync(path.join(from, name))) rmSync(path.join(to, name));
  }
}

function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    // Another file system (the backup directory on another disk): a copy, with owner and mode.
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    copyFileMeta(from, to);
  }
}

function copyFileMeta(from: string, to: string): void {
  copyFileSync(from, to);
  const s = statSync(from);
  chownSync(to, s.uid, s.gid);
  chmodSync(to, s.mode & 0o7777);
}

function copyDirMeta(from: string, to: string): void {
  const s = lstatSync(from);
  mkdirSync(to, { recursive: true });
  chownSync(to, s.uid, s.gid);
  chmodSync(to, s.mode & 0o7777);
}

/**
 * Dovecot's dotlock: the lock file made exclusively, holding `pid:host` as Dovecot's own do.
 * Dovecot waits while it exists, and treats it as stale once its pid no longer runs (or after two
 * minutes); so does this, so neither a backup killed while staging nor a Dovecot process killed
 * while delivering leaves a mailbox that blocks the next backup (backup-lock.ts).
 */
async function withMailboxLock(dir: string, fn: () => void): Promise<void> {
  const lock = path.join(dir, LOCK);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const owner = tryLock(lock, 2 * 60_000);
    if (!owner) break;
    if (Date.now() > deadline) {
      throw new OperatorProblem(
        `Mailbox ${dir}: ${LOCK} held by pid ${owner.pid} for over a minute — is Dovecot stuck on it? Back up again later`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    fn();
  } finally {
    rmSync(lock, { force: true });
  }
}
