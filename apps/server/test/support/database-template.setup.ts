import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dumpMigratedPGlite } from './pglite-template.ts';
import { createPostgresTemplate } from './postgres-template.ts';

/**
 * Vitest's global set-up for the server tests: one migrated database that every test file's
 * database starts from (test-database.ts). On the embedded database, a dump in a file: a new PGlite
 * runs initdb and every migration, about 3 s on these machines; loading the dump takes well under
 * one. On a PostgreSQL server (TEST_DATABASE_URL), a template database that `create database …
 * template` copies instead of migrating each new database.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const template = await createPostgresTemplate(serverUrl);
    // Forked test workers start after this and inherit the environment.
    process.env.ATRIUM_TEST_PG_TEMPLATE = template.name;
    return template.drop;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-pglite-template-'));
  const file = path.join(dir, 'migrated.tar');
  writeFileSync(file, await dumpMigratedPGlite());
  process.env.ATRIUM_TEST_PGLITE_TEMPLATE = file;
  return async () => rmSync(dir, { recursive: true, force: true });
}
