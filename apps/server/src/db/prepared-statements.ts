import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * How many statements one connection keeps prepared. Most statements have one text per call
 * site; lists of varying length (`in ($1, $2, …)`, batch inserts) make new texts, and beyond this
 * they are parsed each time as before, so a connection's memory on the server stays bounded.
 */
export const PREPARED_PER_CONNECTION = 256;

/** PostgreSQL's error when a prepared statement's result columns changed under it (a migration). */
const STALE_PLAN = 'cached plan must not change result type';

/** The statement's name on the server: the same text always gets the same name, within 63 bytes. */
const nameOf = (text: string) => `atrium_${createHash('sha1').update(text).digest('hex')}`;

/**
 * Runs a pooled connection's parameterised statements as named prepared statements: PostgreSQL
 * parses and plans each text once per connection instead of on every call. On this 2-core machine
 * that cut the server's work per refresh grant by about a quarter (issue 18). Statements without
 * parameters keep the simple protocol (migrations send several statements in one).
 *
 * A migration by another process can change what a prepared statement returns; PostgreSQL then
 * refuses it. Outside a transaction the statement is sent again unprepared, so the caller never
 * sees it; inside one the transaction has failed and the error stands. Either way `onStale` lets
 * the pool replace the connection, whose other prepared statements may be stale too.
 */
export function prepareStatementsOn(client: pg.PoolClient, onStale: () => void): void {
  // By text, so a statement prepared already is not hashed again (8 µs a call, issue 18).
  const prepared = new Map<string, string>();
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const named = (text: unknown, values: unknown, callback: unknown): string | undefined => {
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || callback) return;
    const known = prepared.get(text);
    if (known !== undefined || prepared.size >= PREPARED_PER_CONNECTION) return known;
    const name = nameOf(text);
    prepared.set(text, name);
    return name;
  };
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    const name = named(text, values, callback);
    if (!name) return query(text, values, callback);
    return (query({ name, text, values }) as Promise<unknown>).catch((error: unknown) => {
      if (!(error instanceof Error) || !error.message.includes(STALE_PLAN)) throw error;
      onStale();
      if (client.getTransactionStatus() !== 'I') throw error;
      return query(text, values);
    });
  }) as typeof client.query;
}
