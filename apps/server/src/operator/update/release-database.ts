import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../config.ts';
import { connectDatabase } from '../../db/connect.ts';
import { secureDataDirectory, tightenPermissions } from '../../db/data-dir.ts';
import { appliedMigrations, migrateToLatest } from '../../db/migrate.ts';
import { releaseMigrations, updateRefusal } from './migration-rules.ts';

/**
 * Run by `update` inside a release, as the service user (so DATA_DIR keeps its owner), with the
 * settings file as environment:
 *   node --env-file=<settings> apps/server/src/operator/update/release-database.ts applied
 *   node --env-file=<settings> …/release-database.ts migrate --previous <id> [--allow-breaking]
 * `applied` prints the migrations the database holds; `migrate` checks the rule
 * (migration-rules.ts) against the database itself, then runs this release's migrations with this
 * release's code. One JSON line on stdout: `{"applied":[…]}` or `{"refused":"…"}` (exit 2). A
 * database that cannot be opened is one line on stderr (exit 1). The embedded database is opened
 * only while no server holds it (data-dir-lock.ts), so update stops the server first there.
 */
process.umask(0o077);

const releaseDir = path.resolve(import.meta.dirname, '../../../../..');

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    options: { previous: { type: 'string' }, 'allow-breaking': { type: 'boolean' } },
    allowPositionals: true,
  });
  const config = loadConfig();
  secureDataDirectory(config.dataDir, { create: !config.databaseUrl });
  const db = await connectDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'pgdata'),
  });
  try {
    const applied = await appliedMigrations(db);
    if (positionals[0] !== 'migrate') {
      console.log(JSON.stringify({ applied }));
      return 0;
    }
    const id = readFileSync(path.join(releaseDir, '.atrium-release'), 'utf8').trim();
    const refused = updateRefusal(
      applied,
      { id, migrations: releaseMigrations(releaseDir) },
      values.previous ?? 'the previous release',
      values['allow-breaking'] ?? false,
    );
    if (refused) {
      console.log(JSON.stringify({ refused }));
      return 2;
    }
    await migrateToLatest(db);
    const now = await appliedMigrations(db);
    console.log(JSON.stringify({ applied: now.filter((name) => !applied.includes(name)) }));
    return 0;
  } finally {
    await db.destroy();
    // PGlite sets the modes of some files it writes itself; leave none readable by others.
    if (!config.databaseUrl) tightenPermissions(path.join(config.dataDir, 'pgdata'));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ConfigError ? error.message : (error as Error).message.split('\n')[0]);
    process.exit(1);
  },
);
