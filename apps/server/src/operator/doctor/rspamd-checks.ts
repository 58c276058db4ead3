import { connect } from 'node:net';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { rspamdDir } from '../install/rspamd-files.ts';
import { fail, pass, type Check } from './check.ts';
import { readIfThere } from './mail-daemon-files.ts';
import { connects, PROBE_TIMEOUT_MS } from './probes.ts';
import { serviceCommand } from './service-commands.ts';

/** What install wrote for rspamd: its milter, its controller (and password), its Redis. */
export function rspamdSettings(layout: HostLayout) {
  const read = (name: string) => readIfThere(path.join(rspamdDir(layout), name)) ?? '';
  const address = (text: string, key: string) => {
    const found = new RegExp(`^\\s*${key}\\s*=\\s*"([^"]+):(\\d+)"`, 'm').exec(text);
    return found ? { host: found[1]!, port: Number(found[2]) } : undefined;
  };
  const controller = read('override.d/worker-controller.inc');
  return {
    milter: address(read('local.d/worker-proxy.inc'), 'bind_socket'),
    controller: address(controller, 'bind_socket'),
    password: /^\s*password\s*=\s*"([^"]+)"/m.exec(controller)?.[1],
    redis: address(read('local.d/redis.conf'), 'servers'),
  };
}

/** Sends `say` and resolves with what came back once `done` says it is complete (or on close). */
function exchange(
  to: { host: string; port: number },
  say: string,
  done: (received: string) => boolean,
): Promise<{ ok: true; received: string } | { ok: false; code: string }> {
  return new Promise((resolve) => {
    const socket = connect(to);
    let received = '';
    const end = (result: { ok: true; received: string } | { ok: false; code: string }) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => end({ ok: false, code: 'no answer' }));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      end({ ok: false, code: error.code ?? error.message }),
    );
    socket.once('connect', () => socket.write(say));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (done(received)) end({ ok: true, received });
    });
    socket.once('close', () => end({ ok: true, received }));
  });
}

/** An HTTP GET on loopback without fetch's connection pool: one request, one answer. */
async function controllerGet(
  to: { host: string; port: number },
  url: string,
  password?: string,
): Promise<{ status: number; body: string } | { error: string }> {
  const request = `GET ${url} HTTP/1.0\r\nHost: ${to.host}\r\n${password ? `Password: ${password}\r\n` : ''}Connection: close\r\n\r\n`;
  const answer = await exchange(to, request, () => false);
  if (!answer.ok) return { error: answer.code };
  const status = Number(/^HTTP\/1\.\d (\d{3})/.exec(answer.received)?.[1] ?? 0);
  return { status, body: answer.received.split('\r\n\r\n').slice(1).join('\r\n\r\n') };
}

/**
 * rspamd and Redis (docs/mail.md, "Spam and forgery protection"): the milter Postfix asks on
 * port 25 and submission accepts connections (while it does not, mail is deferred with 4xx), the
 * controller answers /ping and says which version runs and how much it scanned, and Redis answers
 * PING (without it greylisting and learning stop, mail still flows).
 */
export function rspamdChecks(layout: HostLayout): Check[] {
  const start = (service: string) => serviceCommand(layout.root, service, 'restart');
  return [
    {
      name: 'rspamd',
      async run() {
        const s = rspamdSettings(layout);
        if (!s.milter || !s.controller) {
          return fail(
            `no rspamd configuration in ${rspamdDir(layout)}`,
            'npm run atrium -- install (writes it)',
          );
        }
        // A milter says nothing until Postfix speaks: accepting the connection is its answer.
        const milter = await connects(s.milter);
        const where = `${s.milter.host}:${s.milter.port}`;
        if (!milter.ok) {
          return fail(
            `its milter does not answer on ${where} (${milter.code}): Postfix defers every message with 4xx`,
            start('rspamd'),
          );
        }
        const ping = await controllerGet(s.controller, '/ping');
        if ('error' in ping || ping.status !== 200 || ping.body.trim() !== 'pong') {
          return fail(
            `its controller does not answer /ping on ${s.controller.host}:${s.controller.port}`,
            start('rspamd'),
          );
        }
        const stat = await controllerGet(s.controller, '/stat', s.password);
        let version = 'version unknown';
        if (!('error' in stat) && stat.status === 200) {
          const body = JSON.parse(stat.body) as { version?: string; scanned?: number };
          version = `rspamd ${body.version ?? '?'}, ${body.scanned ?? 0} messages scanned since it started`;
        } else if (!('error' in stat) && stat.status === 403) {
          return fail(
            "its controller refuses the password in install's file (rspamd runs with another configuration)",
            start('rspamd'),
          );
        }
        return pass(`${version}; milter on ${where}, controller answers /ping`);
      },
    },
    {
      name: 'Redis (rspamd)',
      async run() {
        const redis = rspamdSettings(layout).redis;
        if (!redis) return fail('rspamd names no Redis server', 'npm run atrium -- install (writes it)');
        const answer = await exchange(redis, 'PING\r\n', (r) => r.includes('\r\n'));
        const where = `${redis.host}:${redis.port}`;
        if (answer.ok && answer.received.startsWith('+PONG')) return pass(`answers PING on ${where}`);
        return fail(
          answer.ok
            ? `${where} answered ${JSON.stringify(answer.received.trim().slice(0, 80))} to PING`
            : `nothing answers on ${where} (${answer.code}): greylisting and spam learning stop, mail still flows`,
          start('redis-server'),
        );
      },
    },
  ];
}
