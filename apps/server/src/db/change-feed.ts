import type { EventEmitter } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Db } from './database.ts';

/** The channel the `atrium_notify_change` trigger writes to: `<table>:<key>`. */
export const CHANGES_CHANNEL = 'atrium_changes';

/** Where a database's notifications can be heard: a PostgreSQL server, or the PGlite in this process. */
export type ListenSource =
  { kind: 'pg'; url: string; pooledNotifications: EventEmitter } | { kind: 'pglite'; pglite: PGlite };
const sources = new WeakMap<Db, ListenSource>();

/** Called by connect.ts for each database it opens. */
export function rememberListenSource(db: Db, source: ListenSource): void {
  sources.set(db, source);
}

export interface ChangeFeed {
  /**
   * True while changes are being heard. A cache may keep a value only then: while the feed is
   * down (a lost connection), a change made by another process would go unnoticed.
   */
  readonly live: boolean;
  /** `onChange(table, key)` for each changed row; `onReset()` when changes may have been missed. */
  subscribe(listener: { onChange(table: string, key: string): void; onReset(): void }): void;
  close(): Promise<void>;
}

/**
 * The changes other processes (and this one) write, heard through PostgreSQL's LISTEN/NOTIFY:
 * triggers on the tables Atrium caches send `table:key` in the writing transaction, delivered
 * once it commits. With several Atrium processes on one PostgreSQL, each hears every change.
 */
export async function openChangeFeed(
  db: Db,
  options: { onError?: (error: Error) => void; retryMs?: number } = {},
): Promise<ChangeFeed> {
  const listeners: Array<{ onChange(table: string, key: string): void; onReset(): void }> = [];
  const deliver = (payload: string | undefined) => {
    const at = payload?.indexOf(':') ?? -1;
    if (!payload || at < 0) return;
    for (const l of listeners) l.onChange(payload.slice(0, at), payload.slice(at + 1));
  };
  const reset = () => {
    for (const l of listeners) l.onReset();
  };
  const source = sources.get(db);
  if (!source) return { live: false, subscribe: (l) => void listeners.push(l), close: async () => undefined };

  if (source.kind === 'pglite') {
    // One process owns an embedded database (data-dir-lock.ts): its own writes are all there is.
    const unlisten = await source.pglite.listen(CHANGES_CHANNEL, deliver);
    return { live: true, subscribe: (l) => void listeners.push(l), close: () => unlisten() };
  }

  // This process's own writes, heard on the connection that made them (connect.ts).
  source.pooledNotifications.on('change', deliver);
  let client: pg.Client | undefined;
  let live = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const retryMs = options.retryMs ?? 1_000;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: source.url, connectionTimeoutMillis: 5_000 });
    const lost = (error?: Error) => {
      if (client !== next) return;
      if (error) options.onError?.(error);
      live = false;
      client = undefined;
      reset();
      next.removeAllListeners('notification');
      void next.end().catch(() => undefined);
      if (!closed) {
        timer = setTimeout(() => void connect(), retryMs);
        // Retrying must not keep a process alive that is otherwise done.
        timer.unref();
      }
    };
    client = next;
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', (message) => deliver(message.payload));
    try {
      await next.connect();
      await next.query(`listen ${CHANGES_CHANNEL}`);
      if (client !== next || closed) return;
      // Whatever changed while nobody listened is unknown: start from nothing.
      reset();
      live = true;
    } catch (error) {
      lost(error as Error);
    }
  };
  await connect();
  return {
    get live() {
      return live;
    },
    subscribe: (l) => void listeners.push(l),
    async close() {
      closed = true;
      clearTimeout(timer);
      source.pooledNotifications.off('change', deliver);
      const current = client;
      client = undefined;
      live = false;
      await current?.end().catch(() => undefined);
    },
  };
}
