import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dumpMigratedPGlite } from './pglite-template.ts';

/**
 * Vitest's global set-up for the server tests: one migrated embedded database, dumped to a file
 * that every test file's database starts from (test-database.ts). A new PGlite runs initdb and
 * every migration, about 3 s on these machines; loading the dump takes well under one.
 */
export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-pglite-template-'));
  const file = path.join(dir, 'migrated.tar');
  writeFileSync(file, await dumpMigratedPGlite());
  // Forked test workers start after this and inherit the environment.
  process.env.ATRIUM_TEST_PGLITE_TEMPLATE = file;
  return () => rmSync(dir, { recursive: true, force: true });
}
