import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { ConfigError } from '../config.ts';
import { lockDataDirectory } from './data-dir-lock.ts';
import type { Database } from './database.ts';

const INT8_OID = 20;
// Counts and bigserials as numbers on both drivers; they stay far below 2^53.
const parseInt8 = (value: string) => Number(value);

export interface DatabaseTarget {
  /** A PostgreSQL server; otherwise PGlite. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` keeps it in memory (tests). */
  pgliteDir?: string;
}

/** Opens Kysely over PostgreSQL or embedded PGlite and proves the database answers. */
export async function connectDatabase(target: DatabaseTarget): Promise<Kysely<Database>> {
  if (target.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: target.databaseUrl,
      max: 10,
      connectionTimeoutMillis: 5_000,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID
            ? parseInt8
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    try {
      await pool.query('select 1');
    } catch (error) {
      await pool.end().catch(() => undefined);
      const host = safeHost(target.databaseUrl);
      throw new ConfigError('DATABASE_URL', `cannot connect to ${host}: ${(error as Error).message}`);
    }
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  const dir = target.pgliteDir ?? 'memory://';
  if (!dir.startsWith('memory://')) {
    mkdirSync(path.dirname(dir), { recursive: true });
    lockDataDirectory(dir);
  }
  const pglite = await PGlite.create(dir, { parsers: { [INT8_OID]: parseInt8 } });
  return new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
}

function safeHost(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'the database';
  }
}
