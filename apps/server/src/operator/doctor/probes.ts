import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { HostLayout } from '../host-layout.ts';
import { hasSystemd } from '../service-control.ts';

/**
 * Small asynchronous looks at a running host for doctor's checks: none blocks the event loop
 * (no spawnSync), so checks that wait on sockets run side by side within their timeouts.
 */
export const PROBE_TIMEOUT_MS = 5_000;

/** The pid in `file` belongs to a live process (EPERM: alive, another user's). */
export function pidAlive(file: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(file, 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

/** Whether a service runs: `systemctl is-active` where PID 1 is systemd, else its pid file. */
export async function serviceState(
  layout: HostLayout,
  o: { unit: string; pidFile: string },
): Promise<{ running: boolean; detail: string }> {
  if (layout.root === '/' && hasSystemd()) {
    const state = await new Promise<string>((resolve) => {
      execFile('systemctl', ['is-active', o.unit], { timeout: PROBE_TIMEOUT_MS }, (_error, stdout) =>
        resolve(String(stdout).trim() || 'unknown'),
      );
    });
    return state === 'active'
      ? { running: true, detail: 'active (systemd)' }
      : { running: false, detail: `${o.unit} is ${state} (systemd)` };
  }
  const pid = pidAlive(o.pidFile);
  return pid
    ? { running: true, detail: `pid ${pid} (${o.pidFile})` }
    : { running: false, detail: `no live process in ${o.pidFile}` };
}

export type Connected = { ok: true } | { ok: false; code: string };

const errorCode = (error: unknown) =>
  (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? 'no answer';

/** A TCP connection to host:port, or a Unix socket with `{ path }`. */
export function connects(to: { host: string; port: number } | { path: string }): Promise<Connected> {
  return new Promise((resolve) => {
    const socket = connect({ ...to, timeout: PROBE_TIMEOUT_MS });
    const done = (result: Connected) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done({ ok: true }));
    socket.once('timeout', () => done({ ok: false, code: 'ETIMEDOUT' }));
    socket.once('error', (error) => done({ ok: false, code: errorCode(error) }));
  });
}

export type HttpAnswer = { ok: true; status: number } | { ok: false; code: string };

/**
 * One HTTP request as a client makes it: `servername` and `host` name the site (SNI and Host)
 * while the connection goes to `address`. The certificate is not verified here (a liveness
 * probe); the certificate checks judge it.
 */
export function httpAnswer(o: {
  tls: boolean;
  address: string;
  port: number;
  host: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
}): Promise<HttpAnswer> {
  return new Promise((resolve) => {
    const request = o.tls ? httpsRequest : httpRequest;
    const req = request(
      {
        host: o.address,
        port: o.port,
        method: o.method,
        path: o.path,
        headers: { host: o.host, ...o.headers },
        timeout: PROBE_TIMEOUT_MS,
        ...(o.tls ? { servername: o.host.replace(/:\d+$/, ''), rejectUnauthorized: false } : {}),
      },
      (res) => {
        res.resume();
        resolve({ ok: true, status: res.statusCode ?? 0 });
      },
    );
    req.once('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.once('error', (error) => resolve({ ok: false, code: errorCode(error) }));
    req.end();
  });
}

/** `127.0.0.1` for a wildcard listen setting, the address itself (without brackets) otherwise. */
export function loopbackOf(listen: string | undefined): string {
  if (!listen || listen === 'all' || listen === '*' || listen === '0.0.0.0' || listen === '::') {
    return '127.0.0.1';
  }
  return listen.replace(/^\[|\]$/g, '');
}

/**
 * Whether a line-based service at `address` answers as it should: `hello` (if any) is sent on
 * connecting, and `answered` decides from what came back so far. `silent` when it closes or says
 * nothing within PROBE_TIMEOUT_MS, `refused` when nothing listens.
 */
export function converses(
  address: { host: string; port: number },
  answered: (received: string) => boolean,
  hello?: string,
): Promise<'answers' | 'silent' | 'refused'> {
  return new Promise((resolve) => {
    const socket = connect(address);
    let received = '';
    const done = (outcome: 'answers' | 'silent' | 'refused') => {
      socket.destroy();
      resolve(outcome);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done('silent'));
    socket.once('error', () => done('refused'));
    if (hello !== undefined) socket.once('connect', () => socket.write(hello));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (answered(received)) done('answers');
    });
    socket.once('close', () => done('silent'));
  });
}
