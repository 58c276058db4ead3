import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * When update may apply a release's migrations, and when it may go back to an older release.
 *
 * The rule: migrations are additive (new tables, columns with defaults, indexes) unless one
 * declares itself breaking with `export const breaking = '<why older code cannot run against
 * it>';` (a dropped or renamed column, a changed meaning). An older release runs against a
 * database that holds a newer release's additive migrations (db/migrate.ts leaves them in place),
 * so going back over them is safe; over a breaking one it is not. Hence:
 * - update refuses a release whose pending migrations include a breaking one, unless given
 *   `--allow-breaking` (after a backup), and then does not go back automatically if it fails;
 * - update refuses a release that does not know every migration the database holds (a downgrade:
 *   go back with `--rollback`, which refuses only when a breaking migration is in the way).
 * A migration's name (its file name) sorts by date; a release knows the files in its own
 * apps/server/src/db/migrations.
 */
export interface MigrationFile {
  name: string;
  /** Why releases before it cannot run against the database after it; absent when additive. */
  breaking?: string;
}

const BREAKING = /^export const breaking\s*=\s*(['"`])(.+?)\1/m;

/** The migrations a release (or checkout) holds, by name, read from its files. */
export function releaseMigrations(releaseDir: string): MigrationFile[] {
  const dir = path.join(releaseDir, 'apps', 'server', 'src', 'db', 'migrations');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => /\.(ts|js|mts|mjs)$/.test(file) && !file.endsWith('.d.ts') && !file.includes('.test.'))
    .sort()
    .map((file) => {
      const breaking = BREAKING.exec(readFileSync(path.join(dir, file), 'utf8'))?.[2];
      return { name: file.replace(/\.[^.]+$/, ''), ...(breaking ? { breaking } : {}) };
    });
}

const list = (names: string[]) =>
  names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;

/**
 * Why release `target` may not be migrated onto a database holding `applied`, or undefined.
 * `previous` names the release serving now, for the message.
 */
export function updateRefusal(
  applied: string[],
  target: { id: string; migrations: MigrationFile[] },
  previous: string,
  allowBreaking: boolean,
): string | undefined {
  const knows = new Set(target.migrations.map((m) => m.name));
  const unknown = applied.filter((name) => !knows.has(name));
  if (unknown.length > 0) {
    return (
      `the database holds ${unknown.length === 1 ? 'a migration' : 'migrations'} that release ${target.id} ` +
      `does not know (${list(unknown)}): it is older than the database — update to a release that has ` +
      `${unknown.length === 1 ? 'it' : 'them'}, or go back to a kept release with --rollback`
    );
  }
  const done = new Set(applied);
  const breaking = target.migrations.filter((m) => m.breaking && !done.has(m.name));
  if (breaking.length > 0 && !allowBreaking) {
    const [first] = breaking;
    return (
      `migration ${first!.name} of release ${target.id} is breaking (${first!.breaking}): release ` +
      `${previous} cannot run against the database after it, so update could not go back if ` +
      `${target.id} fails — back up the database, then run update again with --allow-breaking`
    );
  }
  return undefined;
}

/**
 * Why update may not go back to release `target` over a database holding `applied`, or
 * undefined. `declared` holds every migration file update can read (the kept releases' and the
 * new checkout's), which is where a breaking migration's declaration is found.
 */
export function rollbackRefusal(
  applied: string[],
  target: { id: string; migrations: MigrationFile[] },
  declared: MigrationFile[],
): string | undefined {
  const knows = new Set(target.migrations.map((m) => m.name));
  const breaking = new Map(declared.filter((m) => m.breaking).map((m) => [m.name, m.breaking!]));
  const inTheWay = applied.filter((name) => !knows.has(name) && breaking.has(name));
  if (inTheWay.length === 0) return undefined;
  return (
    `release ${target.id} cannot run against this database: migration ${inTheWay[0]} is breaking ` +
    `(${breaking.get(inTheWay[0]!)}) — restore the database from the backup taken before the update, ` +
    'or update to a release that fixes the problem'
  );
}
