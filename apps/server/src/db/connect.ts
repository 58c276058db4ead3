import { EventEmitter } from 'node:events';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { ConfigError, type Config } from '../config.ts';
import { CHANGES_CHANNEL, rememberListenSource } from './change-feed.ts';
import { secureDataDirectory, tightenPermissions } from './data-dir.ts';
import { lockDataDirectory } from './data-dir-lock.ts';
import type { Database, Db } from './database.ts';
import { appliedMigrations, migrateToLatest, writeAppliedMigrations } from './migrate.ts';
import { prepareStatementsOn } from './prepared-statements.ts';

const INT8_OID = 20;
// Counts and bigserials as numbers on both drivers; they stay far below 2^53.
const parseInt8 = (value: string) => Number(value);
/** Counts as numbers, and pg_trgm for the user search's trigram index (a migration creates it). */
export const PGLITE_OPTIONS: PGliteOptions = { parsers: { [INT8_OID]: parseInt8 }, extensions: { pg_trgm } };

export interface DatabaseTarget {
  /** A PostgreSQL server; otherwise PGlite. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` keeps it in memory (tests). */
  pgliteDir?: string;
  /** An in-memory database starts from this dump of a data directory (tests: a migrated one). */
  pgliteTemplate?: Blob | undefined;
  /**
   * A pooled PostgreSQL connection failed outside a query (the server restarted, or an
   * administrator ended the backend). The pool drops it and opens a new one when needed; this
   * only reports it. Defaults to one line on stderr.
   */
  onConnectionError?: (error: Error) => void;
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
    // A connection that dies emits 'error' on its client, and on the pool too while it is idle;
    // an 'error' nobody listens to ends the process. Each client reports its own loss once; the
    // pool's copy of it for idle clients needs a listener but nothing more (the pool has already
    // dropped the client). A query running on a connection that dies fails on its own, so a lost
    // connection costs only the request that was using it.
    const report =
      target.onConnectionError ??
      ((error: Error) => console.error(`Database connection lost: ${error.message}`));
    // Each pooled connection listens for cache changes too: PostgreSQL tells a session of its own
    // NOTIFY before its COMMIT returns, so this process's writes reach its caches at once
    // (change-feed.ts), not a moment later through the listening connection.
    const pooledNotifications = new EventEmitter();
    pool.on('connect', (client) => {
      client.on('notification', (message) => pooledNotifications.emit('change', message.payload));
      client.on('error', report);
      client.connection.on('errorMessage', (message: { severity?: string }) => {
        if (message.severity === 'FATAL' || message.severity === 'PANIC') ending.add(client);
      });
    });
    pool.on('error', () => undefined);
    try {
      await pool.query('select 1');
    } catch (error) {
      await pool.end().catch(() => undefined);
      const host = safeHost(target.databaseUrl);
      throw new ConfigError('DATABASE_URL', `cannot connect to ${host}: ${(error as Error).message}`);
    }
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: destroyingEndedClients(pool) }) });
    rememberListenSource(db, { kind: 'pg', url: target.databaseUrl, pooledNotifications });
    return db;
  }
  const dir = target.pgliteDir ?? 'memory://';
  if (dir.startsWith('memory://')) {
    const pglite = await PGlite.create(dir, { ...PGLITE_OPTIONS, loadDataDir: target.pgliteTemplate });
    return onPGlite(pglite);
  }
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  lockDataDirectory(dir);
  refuseToInitialiseOver(dir);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dir, PGLITE_OPTIONS);
  } catch (error) {
    throw new ConfigError(
      'DATA_DIR',
      `the embedded database in ${dir} cannot be opened (${reason(error)}); ` +
        'if it is damaged, restore DATA_DIR from a backup',
    );
  }
  // PGlite gives the files its initdb writes mode 0666 whatever the umask.
  tightenPermissions(dir);
  return onPGlite(pglite);
}

function onPGlite(pglite: PGlite): Db {
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite: takingTurns(pglite) }) });
  rememberListenSource(db, { kind: 'pglite', pglite });
  return db;
}

/**
 * PGlite runs each query on this thread, and its queue starts the next waiting query in a
 * microtask: under load every waiting query ran before the event loop looked at its sockets again,
 * and Node accepts one new connection per turn of the loop. A burst of 50 new connections then
 * waited seconds to be accepted (issue 18: p99 of the users list). Here queries still run one at a
 * time, in order, but each in a turn of the loop of its own. Transactions keep PGlite's own lock.
 */
function takingTurns(pglite: PGlite): PGlite {
  let last: Promise<unknown> = Promise.resolve();
  const query = ((...args: Parameters<PGlite['query']>) => {
    const turn = last.then(nextTurn).then(() => pglite.query(...args));
    last = turn.catch(() => undefined);
    return turn;
  }) as PGlite['query'];
  return new Proxy(pglite, {
    get(target, property) {
      if (property === 'query') return query;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Clients whose backend said it is ending. A backend that is terminated (an administrator's
 * pg_terminate_backend, a restart) first sends a FATAL error, which fails the query running on
 * it, and closes its socket a moment later. Kysely releases the client in between, and the pool
 * would hand the dead connection to the next request, failing a second one. A client whose
 * prepared statements went stale after a migration is replaced the same way.
 */
const ending = new WeakSet<pg.PoolClient>();

/** Pooled connections that already LISTEN for cache changes (change-feed.ts). */
const listening = new WeakSet<pg.PoolClient>();

/**
 * The pool as Kysely sees it, destroying rather than keeping a client whose backend is ending,
 * and making each new connection LISTEN before its first use (awaited: pg warns when a query
 * is sent on a connection that is still busy with another) and prepare what it runs.
 */
function destroyingEndedClients(pool: pg.Pool) {
  return {
    options: pool.options,
    end: () => pool.end(),
    async connect() {
      const client = await pool.connect();
      if (!listening.has(client)) {
        try {
          await client.query(`listen ${CHANGES_CHANNEL}`);
          listening.add(client);
        } catch (error) {
          client.release(true);
          throw error;
        }
        prepareStatementsOn(client, () => ending.add(client));
      }
      const release = client.release;
      client.release = (destroy?: boolean | Error) => release(destroy || ending.has(client));
      return client;
    },
  };
}

/**
 * PGlite creates a new, empty database in any directory without a PG_VERSION file, over whatever
 * is there: a data directory that lost that one file would come back empty, every organisation
 * gone, and report itself ready. Only an empty (or missing) directory may receive a new database.
 */
function refuseToInitialiseOver(dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new ConfigError('DATA_DIR', `${dir} is a file, not a directory`);
    throw new ConfigError('DATA_DIR', `cannot read ${dir} (${(error as Error).message})`);
  }
  if (entries.length === 0 || entries.includes('PG_VERSION')) return;
  throw new ConfigError(
    'DATA_DIR',
    `${dir} has files but no PG_VERSION, so it holds no usable database (damaged, or not ` +
      "Atrium's) and Atrium will not create a new one over it: restore DATA_DIR from a backup, " +
      'or move that directory away to start with an empty database',
  );
}

export interface OpenedDatabase {
  db: Db;
  /** How many entries under DATA_DIR were readable by others and have been tightened. */
  tightened: number;
}

/**
 * What the server and the operator commands do before using the database: make DATA_DIR private,
 * connect, bring the schema up to date, and read every table once. Anything wrong ends in a
 * ConfigError with one line naming DATA_DIR or DATABASE_URL.
 */
export async function openDatabase(
  config: Config,
  options: { onConnectionError?: (error: Error) => void } = {},
): Promise<OpenedDatabase> {
  const tightened = secureDataDirectory(config.dataDir, { create: !config.databaseUrl });
  const db = await connectDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'pgdata'),
    onConnectionError: options.onConnectionError,
  });
  try {
    await migrateToLatest(db);
    if (!config.databaseUrl) writeAppliedMigrations(config.dataDir, await appliedMigrations(db));
    await readEveryTable(db);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    const where = config.databaseUrl
      ? `the database at ${safeHost(config.databaseUrl)}`
      : `the embedded database in ${path.join(config.dataDir, 'pgdata')}`;
    throw new ConfigError(
      config.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR',
      `${where} cannot be read (${reason(error)})` +
        (config.databaseUrl ? '' : '; if it is damaged, restore DATA_DIR from a backup'),
    );
  }
  return { db, tightened };
}

/**
 * Reads a row of every table of the schema, so a table whose file is missing or unreadable stops
 * start-up instead of failing the first request that needs it.
 */
export async function readEveryTable(db: Db): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = current_schema() order by tablename
  `.execute(db);
  if (rows.length === 0) throw new Error('the schema has no tables');
  // One statement (one round trip); each probe stops at the first row it finds.
  const probes = rows.map(({ name }) => sql`exists (select from ${sql.table(name)})`);
  await sql`select ${sql.join(probes)}`.execute(db);
}

/** The first line of an error's message, without Emscripten's advice to rebuild PGlite. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message
    .split('\n')[0]!
    .replace(/\s*Build with -sASSERTIONS for more info\.?/, '')
    .trim();
  if (/^Aborted\(.*\)\.?$/.test(line)) return 'the embedded PostgreSQL aborted while opening it';
  return line || 'unknown error';
}

function safeHost(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'the database';
  }
}
