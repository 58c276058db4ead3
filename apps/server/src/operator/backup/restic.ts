import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { OperatorProblem } from '../operator-problem.ts';
import type { Settings } from '../settings-file.ts';
import {
  lastLine,
  probeLocalRepository,
  resticCause,
  resticProblem,
  saysNoRepository,
} from './restic-errors.ts';

/**
 * Debian's restic, which stores the snapshots: encrypted, deduplicated, incremental, to a local
 * directory, SFTP, S3 or a REST server. Atrium decides what goes in and reads its JSON answers.
 * Settings (the settings file; defaults in brackets):
 *   BACKUP_REPOSITORY     restic's repository [<backup dir>/repository]
 *   BACKUP_PASSWORD_FILE  its password, one line, root 0600 [/etc/atrium/backup-password]
 * The password reaches restic as a file name (RESTIC_PASSWORD_FILE), never on a command line
 * that `ps` shows to every user.
 */
export interface Restic {
  repository: string;
  passwordFile: string;
  env: NodeJS.ProcessEnv;
}

export function resticFor(layout: HostLayout, settings: Settings): Restic {
  const repository = settings.BACKUP_REPOSITORY || path.join(layout.backupDir, 'repository');
  const passwordFile = settings.BACKUP_PASSWORD_FILE || path.join(layout.settingsDir, 'backup-password');
  return {
    repository,
    passwordFile,
    env: {
      ...process.env,
      RESTIC_REPOSITORY: repository,
      RESTIC_PASSWORD_FILE: passwordFile,
      // restic's cache beside the backups (root's home may be small, and --root keeps to DIR).
      RESTIC_CACHE_DIR: path.join(layout.backupDir, 'cache'),
    },
  };
}

export function requireRestic(): void {
  if (spawnSync('restic', ['version'], { encoding: 'utf8' }).status !== 0) {
    throw new OperatorProblem("restic: not installed — apt-get install restic (Debian's package)");
  }
}

/**
 * A first backup makes the password (32 random bytes) and the repository. Losing the password
 * loses every snapshot: the caller tells the operator to keep a copy away from this host.
 */
export function ensurePassword(restic: Restic): boolean {
  if (existsSync(restic.passwordFile)) return false;
  mkdirSync(path.dirname(restic.passwordFile), { recursive: true, mode: 0o755 });
  writeFileSync(restic.passwordFile, `${randomBytes(32).toString('base64url')}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
  return true;
}

/**
 * Opens the repository, or makes it when restic says there is none: only then. A wrong password,
 * a read-only or unreachable repository also fail to read its config, and `restic init` over
 * them would only hide the cause ("config file already exists").
 */
export function ensureRepository(restic: Restic): boolean {
  probeLocalRepository(restic);
  const opened = run(restic, ['cat', 'config', '--no-lock']);
  if (opened.status === 0) return false;
  const init = saysNoRepository(opened.stderr) ? run(restic, ['init']) : opened;
  if (init.status === 0) return true;
  throw new OperatorProblem(
    resticCause(restic, init.stderr) ??
      `Backup repository ${restic.repository}: restic cannot open or create it (${lastLine(init.stderr)}) — ` +
        `check BACKUP_REPOSITORY and that ${restic.passwordFile} is its password`,
  );
}

/**
 * `restic unlock`: removes only stale locks — those of a restic on this host that no longer runs,
 * or older than 30 minutes — never a running one's (that takes --remove-all, which Atrium never
 * gives). Called only while Atrium's own lock shows no other backup alive.
 */
export function unlockStale(restic: Restic): void {
  const result = run(restic, ['unlock']);
  if (result.status !== 0) throw resticProblem(restic, 'Backup repository', 'unlock', result.stderr);
  removeHalfWrittenLocks(restic);
}

/**
 * A restic killed while writing its lock into a local repository leaves the temporary file it
 * writes first (`<id>-tmp-<n>` in locks/), which `unlock` does not know as a lock. Nothing of a
 * live restic can be there: this runs only while no other backup is alive.
 */
function removeHalfWrittenLocks(restic: Restic): void {
  if (!path.isAbsolute(restic.repository)) return;
  const locks = path.join(restic.repository, 'locks');
  if (!existsSync(locks)) return;
  for (const name of readdirSync(locks)) {
    if (/-tmp-\d+$/.test(name)) rmSync(path.join(locks, name), { force: true });
  }
}

export function run(restic: Restic, args: string[], options: { cwd?: string } = {}) {
  return spawnSync('restic', args, {
    cwd: options.cwd,
    env: restic.env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** restic's own command line, or a one-line problem naming the cause. */
export function runOrFail(restic: Restic, args: string[], what: string, cwd?: string): string {
  const result = run(restic, args, { cwd });
  if (result.status !== 0) {
    throw resticProblem(restic, what, args[0]!, result.stderr || String(result.error));
  }
  return result.stdout;
}

export interface BackupSummary {
  snapshotId: string;
  dataAdded: number;
  totalBytesProcessed: number;
}

/**
 * `restic backup --json` of `dir` (its contents, stored relative to it), with a progress line on
 * a terminal: the JSON status lines give the share done.
 */
export async function backupDirectory(restic: Restic, dir: string, tags: string[]): Promise<BackupSummary> {
  const child = spawn('restic', ['backup', '--json', ...tags.flatMap((t) => ['--tag', t]), '.'], {
    cwd: dir,
    env: restic.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let summary: BackupSummary | undefined;
  let stderr = '';
  let pending = '';
  const progress = process.stdout.isTTY;
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-16000)));
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (message.message_type === 'status' && progress) {
        process.stdout.write(`\rBacking up: ${Math.floor(Number(message.percent_done ?? 0) * 100)}%`);
      }
      if (message.message_type === 'summary') {
        summary = {
          snapshotId: String(message.snapshot_id),
          dataAdded: Number(message.data_added),
          totalBytesProcessed: Number(message.total_bytes_processed),
        };
      }
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (progress) process.stdout.write('\r\x1b[K');
  if (code !== 0 || !summary) {
    throw resticProblem(restic, 'Backup', 'backup', stderr || `exit ${code}`);
  }
  return summary;
}

export interface SnapshotInfo {
  id: string;
  shortId: string;
  time: Date;
}

/** Atrium's snapshots, oldest first. */
export function snapshots(restic: Restic): SnapshotInfo[] {
  const out = runOrFail(restic, ['snapshots', '--json', '--tag', 'atrium'], 'Backup repository');
  const list = JSON.parse(out || '[]') as { id: string; short_id: string; time: string }[];
  return list.map((s) => ({ id: s.id, shortId: s.short_id, time: new Date(s.time) }));
}

/**
 * The repository's size: on disk for a local directory (what the operator's disk holds), else
 * restic's count of the data it stores.
 */
export function repositorySize(restic: Restic): number {
  if (path.isAbsolute(restic.repository) && existsSync(restic.repository))
    return directorySize(restic.repository);
  const out = runOrFail(restic, ['stats', '--json', '--mode', 'raw-data'], 'Backup repository');
  return Number((JSON.parse(out) as { total_size: number }).total_size);
}

function directorySize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    total += entry.isDirectory() ? directorySize(at) : statSync(at).size;
  }
  return total;
}

export { lastLine } from './restic-errors.ts';
