import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from './database.ts';

/**
 * A logical dump of every table of the public schema, for backups (issue 32): each row as
 * PostgreSQL's own JSON of it (row_to_json), read in one transaction, so the dump is one moment
 * of the database whichever engine holds it. On PostgreSQL that transaction is a REPEATABLE READ
 * snapshot and writers go on; on the embedded database a transaction holds PGlite's lock, so
 * requests wait for the few seconds the reading takes (and then go on) rather than the server
 * stopping. The same JSON text, sorted, gives each table's checksum, so what a restore loaded can
 * be compared with what was dumped, whatever the engine on either side.
 *
 * The schema is not in the dump: restore runs the same release's migrations first.
 */
export interface TableDigest {
  rows: number;
  sha256: string;
}

export interface SequenceState {
  name: string;
  lastValue: number;
  isCalled: boolean;
}

export interface LogicalDump {
  tables: { name: string; rows: string[] }[];
  sequences: SequenceState[];
}

/** JSON text of timestamps in UTC on both sides, so a dump's checksum does not depend on a session. */
const UTC = sql`set local timezone = 'UTC'`;

export async function dumpDatabase(db: Db): Promise<LogicalDump> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      await UTC.execute(trx);
      const tables = [];
      for (const name of await tableNames(trx)) tables.push({ name, rows: await tableRows(trx, name) });
      const sequences: SequenceState[] = [];
      for (const name of await sequenceNames(trx)) {
        const { rows } = await sql<{ last_value: number | string; is_called: boolean }>`
          select last_value, is_called from ${sql.table(name)}`.execute(trx);
        sequences.push({ name, lastValue: Number(rows[0]!.last_value), isCalled: rows[0]!.is_called });
      }
      return { tables, sequences };
    });
}

/** Rows and checksum of each table, as `dumpDatabase` would give them now. */
export async function databaseDigests(db: Db): Promise<Record<string, TableDigest>> {
  return db.transaction().execute(async (trx) => {
    await UTC.execute(trx);
    const digests: Record<string, TableDigest> = {};
    for (const name of await tableNames(trx)) digests[name] = digestRows(await tableRows(trx, name));
    return digests;
  });
}

export function dumpDigests(dump: LogicalDump): Record<string, TableDigest> {
  return Object.fromEntries(dump.tables.map((t) => [t.name, digestRows(t.rows)]));
}

/** Order-free: a table's rows sorted as text, so physical order (which a restore changes) is not compared. */
export function digestRows(rows: string[]): TableDigest {
  const hash = createHash('sha256');
  for (const row of [...rows].sort()) hash.update(row).update('\n');
  return { rows: rows.length, sha256: hash.digest('hex') };
}

/**
 * Replaces every table's rows with the dump's, in one transaction: the tables are emptied and
 * filled with triggers and foreign keys off (session_replication_role = replica, so the order of
 * tables does not matter and no change notification is sent), then each sequence is set where it
 * was. Needs a superuser on PostgreSQL (the embedded database's user is one).
 */
export async function loadDump(db: Db, dump: LogicalDump): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx);
    await UTC.execute(trx);
    const existing = new Set(await tableNames(trx));
    const missing = dump.tables.filter((t) => !existing.has(t.name)).map((t) => t.name);
    if (missing.length > 0) {
      throw new Error(`the dump has tables this release does not: ${missing.join(', ')}`);
    }
    if (existing.size > 0) {
      await sql`truncate ${sql.join([...existing].map((name) => sql.table(name)))}`.execute(trx);
    }
    for (const table of dump.tables) {
      // A few hundred rows a statement: one statement per row would take minutes for 100,000 users.
      for (let i = 0; i < table.rows.length; i += 500) {
        const batch = `[${table.rows.slice(i, i + 500).join(',')}]`;
        await sql`insert into ${sql.table(table.name)}
          select * from json_populate_recordset(null::${sql.table(table.name)}, ${batch}::json)`.execute(trx);
      }
    }
    for (const s of dump.sequences) {
      await sql`select setval(${`"${s.name}"`}::regclass, ${s.lastValue}, ${s.isCalled})`.execute(trx);
    }
  });
}

async function tableNames(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`.execute(db);
  return rows.map((r) => r.name);
}

async function sequenceNames(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select sequence_name as name from information_schema.sequences
    where sequence_schema = 'public' order by sequence_name`.execute(db);
  return rows.map((r) => r.name);
}

async function tableRows(db: Db, name: string): Promise<string[]> {
  const { rows } = await sql<{ row: string }>`
    select row_to_json(t)::text as row from ${sql.table(name)} t`.execute(db);
  return rows.map((r) => r.row);
}

/**
 * The dump as the backup stores it: per table a line `{"table":…,"rows":N}` and then its N rows,
 * each the server's JSON text verbatim (one line: JSON escapes line breaks). Verbatim, because
 * parsing and writing a row again would change it (a jsonb value's spaces, a numeric's digits).
 */
export function formatDump(dump: LogicalDump): string {
  const lines: string[] = [];
  for (const t of dump.tables) lines.push(JSON.stringify({ table: t.name, rows: t.rows.length }), ...t.rows);
  lines.push(JSON.stringify({ sequences: dump.sequences }));
  return `${lines.join('\n')}\n`;
}

export function parseDump(text: string): LogicalDump {
  const dump: LogicalDump = { tables: [], sequences: [] };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === '') continue;
    const head = JSON.parse(lines[i]!) as { table?: string; rows?: number; sequences?: SequenceState[] };
    if (head.sequences) {
      dump.sequences = head.sequences;
      continue;
    }
    dump.tables.push({ name: head.table!, rows: lines.slice(i + 1, i + 1 + head.rows!) });
    i += head.rows!;
  }
  return dump;
}
