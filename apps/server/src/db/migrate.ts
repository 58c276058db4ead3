import { promises as fs, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { FileMigrationProvider, Migrator, type Migration } from 'kysely/migration';
import type { Database } from './database.ts';

export const MIGRATIONS_DIR = path.join(import.meta.dirname, 'migrations');

/** This release's migrations by name (the file name without `.ts`), as Kysely reads them. */
export function knownMigrations(): Promise<Record<string, Migration>> {
  return new FileMigrationProvider({ fs, path, migrationFolder: MIGRATIONS_DIR }).getMigrations();
}

/** The names of the migrations the database has run (none on a new database). */
export async function appliedMigrations(db: Kysely<Database>): Promise<string[]> {
  const { rows: table } = await sql<{ exists: boolean }>`
    select to_regclass('kysely_migration') is not null as exists
  `.execute(db);
  if (!table[0]?.exists) return [];
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}

/**
 * Brings the schema up to date; runs at start-up and in every test database.
 *
 * A database may hold migrations this release does not know: `npm run atrium -- update` ran a
 * newer release's migrations, the newer release did not become ready and update went back to this
 * one. Migrations are additive unless a migration declares itself breaking (update refuses to go
 * back past one of those, operator/update/migration-rules.ts), so this release runs against the
 * newer schema as it is, leaving those migrations recorded for the newer release to find again.
 * Kysely would refuse ("previously executed migration … is missing"), so they are passed to it as
 * already run and doing nothing.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const known = await knownMigrations();
  const newer = (await appliedMigrations(db)).filter((name) => !(name in known));
  const left = Object.fromEntries(newer.map((name) => [name, { up: async () => undefined }]));
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...known, ...left }) },
    // This release's own pending migrations may sort before a newer release's.
    allowUnorderedMigrations: newer.length > 0,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(
      `Migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? 'unknown error'}`,
    );
  }
}

/** Beside the embedded database: what it holds, written by the server that holds it. */
export const appliedMigrationsFile = (dataDir: string) => path.join(dataDir, 'applied-migrations.json');

/**
 * The embedded database has one user at a time: `update` reads what it holds from this file
 * (written at each start, after migrating) instead of stopping the server to ask it.
 */
export function writeAppliedMigrations(dataDir: string, applied: string[]): void {
  const file = appliedMigrationsFile(dataDir);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(applied)}\n`);
  renameSync(`${file}.tmp`, file);
}

/** What the serving server last wrote; undefined when it never did (a release before this file). */
export function readAppliedMigrations(dataDir: string): string[] | undefined {
  try {
    return JSON.parse(readFileSync(appliedMigrationsFile(dataDir), 'utf8')) as string[];
  } catch {
    return undefined;
  }
}
