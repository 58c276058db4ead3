import { chmodSync, lstatSync, mkdirSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config.ts';

/** Group and other permission bits: none of them may be set under DATA_DIR. */
const GROUP_OR_OTHER = 0o077;

/**
 * What Atrium keeps in DATA_DIR: the generated secret, the embedded database, its lock and the
 * list of its migrations (db/migrate.ts).
 */
const ATRIUM_ENTRIES = ['secret', 'pgdata', 'pgdata.lock', 'applied-migrations.json'];

/**
 * DATA_DIR holds the embedded database (write-ahead log included, with live links and codes in
 * it) and the generated secret, so only the user running Atrium may read it: directories 0700,
 * files 0600, whatever the umask. Creates DATA_DIR when `create` is set (the embedded database
 * needs it) and tightens what is already there: DATA_DIR itself and Atrium's own entries in it,
 * recursively (anything else an operator keeps there is theirs). Returns how many entries it had
 * to tighten, for the log.
 */
export function secureDataDirectory(dataDir: string, options: { create: boolean }): number {
  if (options.create) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let tightened = tightenPermissions(dataDir, { recursive: false });
  for (const name of ATRIUM_ENTRIES) tightened += tightenPermissions(path.join(dataDir, name));
  return tightened;
}

/**
 * Removes group and other access from `root` and, unless told otherwise, everything under it
 * (symbolic links are left alone and not followed); returns how many entries changed. PGlite
 * sets the modes of some files itself (0666 for the files its initdb writes), whatever the
 * process umask, so this runs again after it has opened or closed a data directory. A missing
 * `root` is nothing to do.
 */
export function tightenPermissions(root: string, options: { recursive?: boolean } = {}): number {
  const recursive = options.recursive ?? true;
  let tightened = 0;
  const visit = (entry: string) => {
    const stat = statOrUndefined(entry);
    if (!stat || stat.isSymbolicLink()) return;
    if (stat.mode & GROUP_OR_OTHER) {
      try {
        chmodSync(entry, stat.isDirectory() ? 0o700 : 0o600);
        tightened++;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw new ConfigError(
            'DATA_DIR',
            `cannot make ${entry} readable by its owner only (${(error as Error).message}); ` +
              'run Atrium as the user who owns DATA_DIR',
          );
        }
      }
    }
    if (recursive && stat.isDirectory()) {
      for (const name of readdirOrEmpty(entry)) visit(path.join(entry, name));
    }
  };
  visit(root);
  return tightened;
}

// A file may vanish while the walk runs (PGlite removes temporary files): skip it.
function statOrUndefined(entry: string): Stats | undefined {
  try {
    return lstatSync(entry);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(entry, error);
  }
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw unreadable(dir, error);
  }
}

function unreadable(entry: string, error: unknown): ConfigError {
  return new ConfigError('DATA_DIR', `cannot read ${entry} (${(error as Error).message})`);
}
