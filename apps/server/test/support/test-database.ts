import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { connectDatabase } from '../../src/db/connect.ts';
import type { Database } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migratedTemplate } from './pglite-template.ts';

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
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await connectDatabase({ databaseUrl: url.href });
  await migrateToLatest(db);
  return {
    db,
    url: url.href,
    async drop() {
      await db.destroy();
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
