import { createServer, type Server, type Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { encodeNetstring, NetstringError, NetstringReader } from './netstring.ts';

/** One named table Postfix may ask about: the value for a key, or null for "not found". */
export type SocketmapTable = (key: string) => Promise<string | null>;

/** Postfix drops an idle socketmap connection itself; this only reaps ones it abandoned. */
const IDLE_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * Postfix's socketmap protocol (socketmap_table(5)): each request is the netstring
 * `<name> <key>`, each reply `OK <value>`, `NOTFOUND `, `TEMP <reason>` or `PERM <reason>`.
 * Tables are looked up by name, so another map (aliases) is another entry in `tables`.
 * Listens on loopback only: config.ts refuses any other address.
 */
export function createSocketmapServer(
  tables: Record<string, SocketmapTable>,
  log: FastifyBaseLogger,
  /** Called for every request Postfix sends (Mail Settings shows when it last asked). */
  onRequest?: () => void,
): Server {
  const answer = async (request: string): Promise<string> => {
    const space = request.indexOf(' ');
    const name = space === -1 ? request : request.slice(0, space);
    const key = space === -1 ? '' : request.slice(space + 1);
    const table = Object.hasOwn(tables, name) ? tables[name] : undefined;
    if (!table) return `PERM unknown map ${name.slice(0, 40)}`;
    try {
      const value = await table(key);
      return value === null ? 'NOTFOUND ' : `OK ${value}`;
    } catch (error) {
      // The database is away: Postfix defers (4xx) instead of refusing mail for good.
      log.error({ err: error, map: name }, 'socketmap lookup failed');
      return 'TEMP lookup failed';
    }
  };

  return createServer((socket: Socket) => {
    socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    const reader = new NetstringReader();
    // Replies go out in request order even though lookups are asynchronous.
    let queue = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      let requests: string[];
      try {
        requests = reader.push(chunk);
      } catch (error) {
        if (error instanceof NetstringError) log.warn({ reason: error.message }, 'socketmap: bad request');
        socket.destroy();
        return;
      }
      for (const request of requests) {
        onRequest?.();
        const reply = answer(request);
        queue = queue.then(async () => {
          if (!socket.destroyed) socket.write(encodeNetstring(await reply));
        });
      }
    });
  });
}
