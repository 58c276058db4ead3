import { chmodSync, renameSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Dovecot's dict protocol (v3, Dovecot 2.3.17+) as a server on a unix socket, for Dovecot's
 * `userdb { driver = dict }` through `uri = proxy:<socket>:atrium`. We chose it over Lua
 * (dovecot-auth-lua, an extra package and an HTTP client written in Lua) and over a passwd file
 * Atrium would rewrite (stale between writes): the dict proxy ships in dovecot-core, is the
 * documented way to back auth with a key-value service (Mailu's podop answers the same), and
 * each lookup is one line over a local socket.
 *
 * Writes come from the quota_clone plugin (each mailbox's usage, whenever it changes), as
 * Dovecot's dict client sends them (src/lib-dict/dict-client.c): `B<id>\t<user>`, then
 * `S<id>\t<key>\t<value>` lines, then `C<id>`. Only the commit (like a lookup) is answered, with
 * `O<id>`, `N<id>` or `F<id>\t<error>`, in the order the client asked; any other reply would be
 * taken as the answer to the client's next command. What Dovecot's own dict server treats as a
 * broken client (an unknown command, a transaction line for no open transaction) closes that
 * connection, as Dovecot's does; the client reconnects on its next command.
 */
/** `user`: whom Dovecot asks for (since 2.3.17 sent with each lookup; `priv/` keys are that user's). */
export type DictLookup = (key: string, user?: string) => Promise<string | null>;

/** One committed transaction: the user it was begun for and the last value set for each key. */
export type DictCommit = (user: string, values: Map<string, string>) => Promise<DictCommitResult>;
export type DictCommitResult = { ok: true } | { ok: false; error: string };

export interface DictHandlers {
  lookup: DictLookup;
  commit?: DictCommit;
  /** Called for every line Dovecot sends (Mail Settings shows when it last asked). */
  onRequest?: () => void;
}

const MAX_LINE = 64 * 1024;
/** Dovecot opens a transaction per change and commits it at once; more open ones is not Dovecot. */
const MAX_OPEN_TRANSACTIONS = 100;
const MAX_KEYS_PER_TRANSACTION = 100;

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

interface Transaction {
  user: string;
  values: Map<string, string>;
  /** Set on a line the commit must refuse (a key Atrium does not store, an increment). */
  error?: string;
}

class BrokenClient extends Error {}

export function createDictServer(handlers: DictHandlers | DictLookup, log: FastifyBaseLogger): Server {
  const { lookup, commit, onRequest } = typeof handlers === 'function' ? { lookup: handlers } : handlers;

  const doLookup = async (args: string[]): Promise<string> => {
    const key = args[0] ?? '';
    try {
      const value = await lookup(key, args[1] || undefined);
      return value === null ? 'N' : `O${tabEscape(value)}`;
    } catch (error) {
      log.error({ err: error }, 'dict lookup failed');
      return 'F\tlookup failed';
    }
  };

  const doCommit = async (id: number, transaction: Transaction): Promise<string> => {
    if (transaction.error) return `F${id}\t${tabEscape(transaction.error)}`;
    if (!commit) return `F${id}\tthis dict takes no writes`;
    // A transaction with no values never reaches the server (the client skips it); answer it alike.
    if (transaction.values.size === 0) return `O${id}`;
    try {
      const result = await commit(transaction.user, transaction.values);
      return result.ok ? `O${id}` : `F${id}\t${tabEscape(result.error)}`;
    } catch (error) {
      log.error({ err: error }, 'dict commit failed');
      return `F${id}\tcommit failed`;
    }
  };

  return createServer((socket: Socket) => {
    socket.on('error', () => socket.destroy());
    let pending = '';
    let queue = Promise.resolve();
    let helloUser = '';
    let closing = false;
    // Commits of one connection are written in the order sent, so an older usage never lands last.
    let writes: Promise<unknown> = Promise.resolve();
    const transactions = new Map<number, Transaction>();

    const transactionId = (text: string | undefined): number => {
      if (!text || !/^\d{1,9}$/.test(text))
        throw new BrokenClient(`bad transaction id ${text?.slice(0, 20)}`);
      return Number(text);
    };
    const open = (text: string | undefined): [number, Transaction] => {
      const id = transactionId(text);
      const transaction = transactions.get(id);
      if (!transaction) throw new BrokenClient(`no open transaction ${id}`);
      return [id, transaction];
    };

    /** The reply to one line (a promise of it), or null for the commands Dovecot expects none for. */
    const handle = (line: string): Promise<string> | null => {
      const command = line[0];
      const args = line.slice(1).split('\t').map(tabUnescape);
      switch (command) {
        case 'H':
          // <major> <minor> <value type> <user> <dict name>; no reply. Since 2.3.17 the user
          // comes with each lookup and BEGIN, and this one is empty.
          helloUser = args[3] ?? '';
          return null;
        case 'L':
          return doLookup(args);
        case 'I':
          return Promise.resolve('F\titeration is not served');
        case 'B': {
          const id = transactionId(args[0]);
          if (transactions.has(id) || transactions.size >= MAX_OPEN_TRANSACTIONS)
            throw new BrokenClient(`cannot begin transaction ${id}`);
          transactions.set(id, { user: args[1] || helloUser, values: new Map() });
          return null;
        }
        case 'S': {
          const [, transaction] = open(args[0]);
          if (args.length !== 3) throw new BrokenClient('SET needs a key and a value');
          if (transaction.values.size >= MAX_KEYS_PER_TRANSACTION && !transaction.values.has(args[1]!))
            transaction.error = 'too many keys in one transaction';
          else transaction.values.set(args[1]!, args[2]!);
          return null;
        }
        case 'U':
        case 'A': {
          // quota_clone only sets; an unset or an increment is something Atrium does not store.
          const [, transaction] = open(args[0]);
          transaction.error = command === 'U' ? 'unset is not supported' : 'increment is not supported';
          return null;
        }
        case 'T':
        case 'V':
          // A timestamp or hide-log-values for the transaction: nothing to keep.
          open(args[0]);
          return null;
        case 'R':
          transactions.delete(open(args[0])[0]);
          return null;
        case 'C': {
          const [id, transaction] = open(args[0]);
          transactions.delete(id);
          const committed = writes.then(() => doCommit(id, transaction));
          writes = committed;
          return committed;
        }
        default:
          throw new BrokenClient(`unknown command ${JSON.stringify(line.slice(0, 1))}`);
      }
    };

    socket.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop()!;
      // Dovecot's lines are at most 64 KiB; a longer one is not Dovecot.
      if (pending.length > MAX_LINE) return socket.destroy();
      for (const line of lines) {
        if (!line || closing) continue;
        onRequest?.();
        let answer: Promise<string> | null;
        try {
          answer = handle(line);
        } catch (error) {
          if (!(error instanceof BrokenClient)) throw error;
          log.warn({ reason: error.message }, 'dict: broken client line, closing the connection');
          closing = true;
          // Replies already owed still go out first.
          queue = queue.then(() => void socket.end());
          return;
        }
        if (answer === null) continue;
        const reply = answer;
        queue = queue.then(async () => {
          const text = await reply;
          if (socket.writable) socket.write(`${text}\n`);
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
  // Made beside it and renamed over it: Dovecot never finds the path missing, even while a new
  // release's server takes it over from the serving one (supervisor/supervisor.ts).
  const fresh = `${path}.${process.pid}`;
  rmSync(fresh, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException & { address?: string }) => {
      // Named by the setting's path, which is what the operator can fix (startup-problem.ts).
      if (error.path === fresh) error.path = path;
      if (error.address === fresh) error.address = path;
      reject(error);
    });
    server.listen(fresh, () => resolve());
  });
  chmodSync(fresh, 0o666);
  renameSync(fresh, path);
}
