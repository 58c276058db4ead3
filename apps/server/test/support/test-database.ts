import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { connectDatabase } from '../../src/db/connect.ts';
import type { Database } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migratedTemplate } from './pglite-template.ts';
import { databaseUrl, onServer } from './postgres-template.ts';

export interface TestDatabase {
  db: Kysely<Database>;
  /** Set when running against a PostgreSQL server: the URL of this test's own database. */
  url: string | undefined;
  drop(): Promise<void>;
}

/**
 * A migrated, empty database for one test file: in-memory PGlite by default, or a fresh
 * database on the server named by TEST_DATABASE_URL, so runs never see each other's rows.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const db = await connectDatabase({ pgliteDir: 'memory://', pgliteTemplate: migratedTemplate() });
    // Without the template (Playwright's server) this migrates; with it, it finds nothing to do.
    await migrateToLatest(db);
    return { db, url: undefined, drop: () => db.destroy() };
  }
  const name = `atrium_test_${randomBytes(6).toString('hex')}`;
  // A copy of the migrated template made by the global set-up (database-template.setup.ts); run
  // without it (a single file outside Vitest's set-up), the new database migrates itself.
  const template = process.env.ATRIUM_TEST_PG_TEMPLATE;
  await onServer(serverUrl, `create database ${name}${template ? ` template ${template}` : ''}`);
  const url = databaseUrl(serverUrl, name);
  const db = await connectDatabase({ databaseUrl: url });
  await migrateToLatest(db);
  return {
    db,
    url,
    async drop() {
      await db.destroy();
      await onServer(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}
