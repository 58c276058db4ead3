import { statfs } from 'node:fs/promises';
import { fail, pass, type Check } from './check.ts';

/**
 * Free space that fails the check: below 1 GiB, or below 5 % of the file system. 1 GiB is what a
 * day of a busy organisation's mail and a database dump need; 5 % catches a large disk filling
 * steadily long before it is full (ext4 keeps its last 5 % for root, whom Atrium does not run as).
 */
const MIN_FREE_BYTES = 1024 ** 3;
const MIN_FREE_FRACTION = 0.05;

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

/** Free space under each directory (DATA_DIR, the mail root, the backups), one line each. */
export function diskChecks(dirs: Array<{ label: string; path: string }>): Check[] {
  return dirs.map(({ label, path }) => ({
    name: `Disk space for ${label}`,
    async run() {
      let stats;
      try {
        stats = await statfs(path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        return fail(`${path}: cannot be examined (${code})`, 'run npm run atrium -- install to create it');
      }
      // bavail: what an unprivileged user (atrium, vmail) can still use.
      const free = stats.bavail * stats.bsize;
      const total = stats.blocks * stats.bsize;
      const percent = total > 0 ? Math.floor((free / total) * 100) : 0;
      const detail = `${gib(free)} free of ${gib(total)} (${percent} %) under ${path}`;
      if (free < MIN_FREE_BYTES || free < total * MIN_FREE_FRACTION) {
        return fail(
          detail,
          `free space on that file system (below 1 GiB or 5 % mail and the database stop): du -xsh ${path}/* | sort -h`,
        );
      }
      return pass(detail);
    },
  }));
}
