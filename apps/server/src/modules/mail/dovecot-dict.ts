import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Dovecot's dict protocol (v3, Dovecot 2.3.17+) as a server on a unix socket, for Dovecot's
 * `userdb { driver = dict }` through `uri = proxy:<socket>:atrium`. We chose it over Lua
 * (dovecot-auth-lua, an extra package and an HTTP client written in Lua) and over a passwd file
 * Atrium would rewrite (stale between writes): the dict proxy ships in dovecot-core, is the
 * documented way to back auth with a key-value service (Mailu's podop answers the same), and
 * each lookup is one line over a local socket. Only lookups are served; Dovecot never writes.
 */
export type DictLookup = (key: string) => Promise<string | null>;

const MAX_LINE = 64 * 1024;

/** Dovecot's tab escaping: \001 followed by 0, 1, t, r or n. */
export function tabEscape(value: string): string {
  return value.replace(
    // eslint-disable-next-line no-control-regex -- the escape character is the point
    /[\0\x01\t\r\n]/g,
    (c) => ({ '\0': '\x010', '\x01': '\x011', '\t': '\x01t', '\r': '\x01r', '\n': '\x01n' })[c]!,
  );
}

export function tabUnescape(value: string): string {
  return value.replace(
    // eslint-disable-next-line no-control-regex -- the escape character is the point
    /\x01(.)/g,
    (_, c: string) => ({ '0': '\0', '1': '\x01', t: '\t', r: '\r', n: '\n' })[c] ?? c,
  );
}

export function createDictServer(lookup: DictLookup, log: FastifyBaseLogger): Server {
  const reply = async (line: string): Promise<string | null> => {
    const command = line[0];
    // HELLO gets no reply; the client does not wait for one.
    if (command === 'H') return null;
    if (command !== 'L') return 'F\tonly lookups are served';
    const key = tabUnescape(line.slice(1).split('\t')[0] ?? '');
    try {
      const value = await lookup(key);
      return value === null ? 'N' : `O${tabEscape(value)}`;
    } catch (error) {
      log.error({ err: error }, 'dict lookup failed');
      return 'F\tlookup failed';
    }
  };

  return createServer((socket: Socket) => {
    socket.on('error', () => socket.destroy());
    let pending = '';
    let queue = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop()!;
      // Dovecot's lines are at most 64 KiB; a longer one is not Dovecot.
      if (pending.length > MAX_LINE) return socket.destroy();
      for (const line of lines) {
        if (!line) continue;
        const answer = reply(line);
        queue = queue.then(async () => {
          const text = await answer;
          if (text !== null && !socket.destroyed) socket.write(`${text}\n`);
        });
      }
    });
  });
}

/**
 * Listens on the unix socket, replacing a stale one left by a previous run. Dovecot's auth
 * process runs as its own user: the socket is world-connectable, and the operator restricts who
 * reaches it through its directory (docs/mail.md).
 */
export async function listenOnUnixSocket(server: Server, path: string): Promise<void> {
  rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o666);
}
