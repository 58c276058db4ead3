import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { ConfigError } from '../config.ts';

/**
 * One process at a time opens an embedded database: PGlite keeps its state in the process, so a
 * second process on the same directory (a second server, or the operator command while the
 * server runs) would not see the first one's writes and could overwrite them. The lock is a file
 * beside the directory holding the owner's pid; a lock left by a process that died (kill -9) is
 * taken over. Released when this process exits.
 */
export function lockDataDirectory(dir: string): void {
  const lockFile = `${dir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      process.once('exit', () => releaseIfOurs(lockFile));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(readFileSync(lockFile, 'utf8').trim());
    if (owner && owner !== process.pid && isAlive(owner)) {
      throw new ConfigError(
        'DATA_DIR',
        `the embedded database in ${dir} is in use by process ${owner} (a running Atrium?); ` +
          'stop it first, or set DATABASE_URL so several processes can share a PostgreSQL server',
      );
    }
    // Left behind by a process that is gone: remove it and try once more (another process
    // starting at the same moment may win; then the loop reports it).
    rmSync(lockFile, { force: true });
  }
  throw new ConfigError('DATA_DIR', `another process took the embedded database in ${dir} just now`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else, so it is alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseIfOurs(lockFile: string): void {
  try {
    if (readFileSync(lockFile, 'utf8').trim() === String(process.pid)) rmSync(lockFile, { force: true });
  } catch {
    // Already gone: nothing to release.
  }
}
