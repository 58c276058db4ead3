import { accessSync, constants, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OperatorProblem } from '../operator-problem.ts';

/**
 * restic's failures, and the file system's under Atrium's own staging, as one plain line naming
 * the cause and what to do: restic prints Go stack traces and retries, and its last line
 * ("unable to create lock in backend") rarely says why. The causes an operator meets: a wrong
 * password, a read-only or full disk, permission denied, an unreachable server, a repository
 * locked by another restic, or damaged.
 */
interface Where {
  repository: string;
  passwordFile: string;
}

/** restic's stderr says the repository is not there yet (a first backup then creates it). */
export function saysNoRepository(stderr: string): boolean {
  // restic: "unable to open config file: stat …/config: no such file or directory \n Is there a
  // repository at the following location?" — also for a REST server's 404. An unreachable
  // server says the same second line, so its cause is looked at first.
  return /Is there a repository at the following location\?/.test(stderr) && !unreachable(stderr);
}

const unreachable = (stderr: string) =>
  /connection refused|no such host|network is unreachable|no route to host|i\/o timeout|connection reset|unable to start the sftp session|TLS handshake timeout|context deadline exceeded|server misbehaving/i.exec(
    stderr,
  )?.[0];

/** The cause in restic's stderr as one line, or undefined when it is none of the known ones. */
export function resticCause(where: Where, stderr: string): string | undefined {
  const repo = `Backup repository ${where.repository}`;
  if (/wrong password or no key found/.test(stderr)) {
    return `${repo}: wrong password — ${where.passwordFile} is not this repository's password; put back the copy kept off this host (BACKUP_PASSWORD_FILE)`;
  }
  if (/read-only file system/i.test(stderr)) {
    return `${repo}: read-only file system — mount its disk read-write (or set BACKUP_REPOSITORY to one that is), then back up again`;
  }
  if (/no space left on device|disk quota exceeded|insufficient storage/i.test(stderr)) {
    return `${repo}: disk full (no space left on the device) — free space there or move BACKUP_REPOSITORY to a larger disk, then back up again`;
  }
  if (/permission denied/i.test(stderr)) {
    return `${repo}: permission denied — the backup runs as root: give root (or the SFTP/REST user) write access to it`;
  }
  const locked = /already locked (?:exclusively )?by (PID \d+ on \S+)/.exec(stderr);
  if (locked) {
    return `${repo}: locked by another restic (${locked[1]}) — wait for it to finish; a lock left by a host that stopped is removed by "restic unlock" once no restic runs`;
  }
  const cause = unreachable(stderr);
  if (cause) {
    return `${repo}: unreachable (${cause.toLowerCase()}) — check that its server answers from this host (network, address, SSH key or REST credentials)`;
  }
  if (/repository contains errors/.test(stderr)) {
    return `${repo}: damaged (restic check found errors) — see "A damaged repository" in docs/backup.md`;
  }
  return undefined;
}

export function resticProblem(where: Where, what: string, command: string, stderr: string): OperatorProblem {
  return new OperatorProblem(
    resticCause(where, stderr) ?? `${what}: restic ${command} failed (${lastLine(stderr) || 'no message'})`,
  );
}

/**
 * A repository on a local (or mounted) disk, tried before restic is: restic retries a write it
 * cannot make for most of a minute and then prints a stack trace, where one file made and removed
 * here names a read-only, full or forbidden disk at once.
 */
export function probeLocalRepository(where: Where): void {
  if (!path.isAbsolute(where.repository)) return;
  // A repository the first backup is about to make: its parent directory (a mounted disk's).
  const dir = existsSync(where.repository) ? where.repository : path.dirname(where.repository);
  if (!isDirectory(dir)) return;
  // In the top directory, where restic reads only the names it knows (not in locks/, which it lists).
  const probe = path.join(dir, '.atrium-probe');
  try {
    accessSync(dir, constants.W_OK);
    // One block: a disk with no room left refuses it.
    writeFileSync(probe, Buffer.alloc(4096));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const text = {
      EROFS: 'read-only file system',
      ENOSPC: 'no space left on device',
      EACCES: 'permission denied',
      EPERM: 'permission denied',
      EDQUOT: 'disk quota exceeded',
    }[code];
    if (text) throw new OperatorProblem(resticCause(where, text)!);
    throw error;
  } finally {
    rmSync(probe, { force: true });
  }
}

function isDirectory(at: string): boolean {
  try {
    return statSync(at).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A file-system error of Atrium's own (staging beside the backups, the scratch space of a
 * verify) as one line; anything else is returned as it is.
 */
export function fileProblem(error: unknown, stagingDir: string): unknown {
  const e = error as NodeJS.ErrnoException;
  const where = e.path ?? stagingDir;
  const fixes: Record<string, string> = {
    ENOSPC: `disk full (no space left on the device) — free space on the disk of ${stagingDir}, then back up again`,
    EDQUOT: `disk quota exceeded — free space on the disk of ${stagingDir}, then back up again`,
    EROFS: `read-only file system — mount it read-write, then back up again`,
    EACCES: `permission denied — run the backup as root (sudo npm run atrium -- backup)`,
    EPERM: `operation not permitted — run the backup as root (sudo npm run atrium -- backup)`,
  };
  const text = e.code ? fixes[e.code] : undefined;
  return text ? new OperatorProblem(`Backup: ${where}: ${text}`) : error;
}

export function lastLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim())
      .at(-1) ?? ''
  ).trim();
}
