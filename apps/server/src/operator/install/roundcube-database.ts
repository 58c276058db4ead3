import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { OperatorProblem } from '../operator-problem.ts';

const SCHEMA = '/usr/share/roundcube/SQL/sqlite.initial.sql';

/**
 * Roundcube's own SQLite database (its sessions, preferences, contacts), made from the schema
 * Debian ships when Debian's dbconfig made none; www-data's, as Roundcube runs in that pool.
 */
export function createRoundcubeDatabase(
  database: string,
  ownership: { uid: number; gid: number } | undefined,
): void {
  // /var/lib/roundcube is Debian's (0755); the database's own directory is www-data's, since
  // SQLite writes its journal beside the file.
  mkdirSync(path.dirname(path.dirname(database)), { recursive: true, mode: 0o755 });
  mkdirSync(path.dirname(database), { recursive: true, mode: 0o750 });
  const run = spawnSync(
    'php',
    ['-r', '$db = new PDO("sqlite:" . $argv[1]); $db->exec(file_get_contents($argv[2]));', database, SCHEMA],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) {
    throw new OperatorProblem(
      `Roundcube's database ${database}: ${(run.stderr || run.stdout || 'php failed').trim()}`,
    );
  }
  if (ownership) {
    chownSync(path.dirname(database), ownership.uid, ownership.gid);
    chownSync(database, ownership.uid, ownership.gid);
  }
  chmodSync(database, 0o640);
}
