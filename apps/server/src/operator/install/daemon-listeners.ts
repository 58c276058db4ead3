import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { RADICALE_PORT } from './dav-files.ts';
import { rspamdPaths } from './rspamd-files.ts';
import type { InstallOptions } from './install-options.ts';
import { webmailPaths } from './webmail-files.ts';

/** A TCP port on an address, or a Unix socket, that a started daemon must accept connections on. */
export type Listener = { host: string; port: number } | { socket: string };

/** How long a daemon has, after its start command returned, to listen (a first start makes keys). */
const LISTEN_WITHIN_MS = 20_000;

export const describeListener = (l: Listener) => ('socket' in l ? l.socket : `${l.host}:${l.port}`);

/** What each service install starts must listen on, once it is up (issue 40: not only "exit 0"). */
export function expectedListeners(o: InstallOptions, layout: HostLayout): Record<string, Listener[]> {
  const publicAddress = o.listen === 'all' ? '127.0.0.1' : o.listen;
  const at = (port: number, host = publicAddress): Listener => ({ host, port });
  const caddy = [at(o.ports.https ?? 443)];
  return {
    // With mail, the supervisor's relay of Postfix's sign-ins too (supervisor/sasl-relay.ts).
    atrium: [at(o.ports.atrium, '127.0.0.1'), ...(o.mail ? [at(o.ports.sasl, '127.0.0.1')] : [])],
    caddy,
    'atrium-caddy': caddy,
    postfix: [at(o.ports.smtp), at(o.ports.submission), at(o.ports.submissions)],
    dovecot: [at(o.ports.imap), at(o.ports.imaps), at(o.ports.managesieve)],
    opendkim: [at(o.ports.dkim, '127.0.0.1')],
    rspamd: [at(o.ports.rspamd, '127.0.0.1'), at(o.ports.rspamdController, '127.0.0.1')],
    'redis-server': [at(o.ports.redis, '127.0.0.1')],
    radicale: [at(RADICALE_PORT, '127.0.0.1')],
    'php8.2-fpm': [{ socket: webmailPaths(layout).socket }],
  };
}

/** The listeners that do not accept a connection within the time given (none: all do). */
export async function notListening(listeners: Listener[], withinMs = LISTEN_WITHIN_MS): Promise<Listener[]> {
  const deadline = Date.now() + withinMs;
  const waiting = await Promise.all(
    listeners.map(async (listener) => {
      while (!(await accepts(listener))) {
        if (Date.now() > deadline) return listener;
        await new Promise((r) => setTimeout(r, 200));
      }
      return undefined;
    }),
  );
  return waiting.filter((l): l is Listener => l !== undefined);
}

function accepts(listener: Listener): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = 'socket' in listener ? connect(listener.socket) : connect(listener.port, listener.host);
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The last line of a log file that looks like an error, for the ✗ line (Caddy's is JSON). */
export function lastErrorLine(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.trimEnd().split('\n').slice(-200).reverse();
  const line = lines.find((l) => /error|fatal|panic|denied|refused|failed/i.test(l));
  if (!line) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: string; error?: string };
    return [entry.msg, entry.error].filter(Boolean).join(': ');
  } catch {
    return line.trim().slice(0, 300);
  }
}

/** Where each service says what went wrong, for the ✗ line. */
export function serviceLogFile(service: string, layout: HostLayout): string | undefined {
  if (service === 'caddy' || service === 'atrium-caddy') return layout.caddyLog;
  if (service === 'atrium') return path.join(layout.logDir, 'atrium.log');
  if (service === 'postfix') return path.join(layout.mailLogDir, 'postfix.log');
  if (service === 'dovecot') return path.join(layout.mailLogDir, 'dovecot.log');
  // Debian's own log files for these two (their packages rotate them).
  if (service === 'rspamd') return rspamdPaths(layout).log;
  if (service === 'redis-server') return path.join(layout.root, 'var/log/redis/redis-server.log');
  return undefined;
}
