import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect } from 'kysely';
import { PGLITE_OPTIONS } from '../../src/db/connect.ts';
import type { Database } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/** A new in-memory database with every migration applied, as the bytes of its data directory. */
export async function dumpMigratedPGlite(): Promise<Uint8Array> {
  const pglite = await PGlite.create('memory://', PGLITE_OPTIONS);
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  try {
    await migrateToLatest(db);
    const dump = await pglite.dumpDataDir('none');
    return new Uint8Array(await dump.arrayBuffer());
  } finally {
    await db.destroy();
  }
}

/** The dump written by the global set-up (database-template.setup.ts), when there is one. */
export function migratedTemplate(): Blob | undefined {
  const file = process.env.ATRIUM_TEST_PGLITE_TEMPLATE;
  return file ? new Blob([readFileSync(file)]) : undefined;
}
