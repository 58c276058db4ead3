import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connectDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/** Runs one statement on the server's maintenance database (create and drop database). */
export async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/**
 * A database with every migration applied and no connection left open, so that `create database
 * … template` can copy it (PostgreSQL refuses while anyone is connected to the template).
 */
export async function createPostgresTemplate(
  serverUrl: string,
): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `atrium_template_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `create database ${name}`);
  const db = await connectDatabase({ databaseUrl: databaseUrl(serverUrl, name) });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  return { name, drop: () => onServer(serverUrl, `drop database if exists ${name} with (force)`) };
}
