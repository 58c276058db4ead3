import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { connectDatabase } from '../src/db/connect.ts';
import type { Database } from '../src/db/database.ts';

export interface BenchDatabase {
  db: Kysely<Database>;
  drop(): Promise<void>;
}

/**
 * A fresh database for a benchmark: PGlite on disk in a temporary directory, or a new database
 * on the PostgreSQL server at `serverUrl`. `drop` removes it. `tag` names it (atrium-TAG-…).
 */
export async function openBenchDatabase(
  kind: 'PGlite' | 'PostgreSQL',
  options: { tag: string; serverUrl: string },
): Promise<BenchDatabase> {
  if (kind === 'PGlite') {
    const dir = mkdtempSync(path.join(tmpdir(), `atrium-${options.tag}-`));
    const db = await connectDatabase({ pgliteDir: path.join(dir, 'pgdata') });
    return { db, drop: async () => (await db.destroy(), rmSync(dir, { recursive: true, force: true })) };
  }
  const name = `atrium_${options.tag}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: options.serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(options.serverUrl);
  url.pathname = `/${name}`;
  const db = await connectDatabase({ databaseUrl: url.href });
  return {
    db,
    async drop() {
      await db.destroy();
      const client = new pg.Client({ connectionString: options.serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
