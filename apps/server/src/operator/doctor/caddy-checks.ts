import { readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { hasSystemd } from '../service-control.ts';
import type { Settings } from '../settings-file.ts';
import type { CertificateTarget } from './certificate-checks.ts';
import { fail, pass, type Check } from './check.ts';
import { accountOf, canRead, type Account, groupName, ownerAndMode } from './file-access.ts';
import { connects, loopbackOf, serviceState } from './probes.ts';
import { serviceCommand } from './service-commands.ts';

/** How much of the end of Caddy's log is read for its last error. */
const LOG_TAIL_BYTES = 64 * 1024;

/**
 * Caddy, the only public listener: where PID 1 is systemd Debian's caddy.service; elsewhere
 * install's /etc/init.d/atrium-caddy, which keeps its pid in /run/caddy.pid (service-files.ts).
 */
export function caddyService(layout: HostLayout): { name: string; pidFile: string } {
  const systemd = layout.root === '/' && hasSystemd();
  return { name: systemd ? 'caddy' : 'atrium-caddy', pidFile: path.join(layout.root, 'run/caddy.pid') };
}

/** Under --root Caddy's admin API is off (several Caddies on one machine): a reload is a restart. */
export const caddyCommand = (layout: HostLayout, action: 'start' | 'restart' | 'reload') =>
  serviceCommand(
    layout.root,
    caddyService(layout).name,
    action === 'reload' && layout.root !== '/' ? 'restart' : action,
  );

/**
 * The last error Caddy wrote to its log (JSON lines: `{"level":"error","ts":…,"msg":…}`), as
 * `2026-11-29T08:01:02Z loading TLS key: open /etc/ssl/private/x.key: permission denied`.
 */
export async function lastCaddyError(log: string): Promise<string | undefined> {
  let text: string;
  try {
    const file = await open(log, 'r');
    try {
      const { size } = await file.stat();
      const length = Math.min(size, LOG_TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      await file.read(buffer, 0, length, size - length);
      text = buffer.toString('utf8');
    } finally {
      await file.close();
    }
  } catch {
    return undefined;
  }
  for (const line of text.split('\n').reverse()) {
    let entry: { level?: string; ts?: number | string; msg?: string; error?: string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (!['error', 'fatal', 'panic'].includes(entry.level ?? '')) continue;
    const at =
      typeof entry.ts === 'number'
        ? `${new Date(entry.ts * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')} `
        : typeof entry.ts === 'string'
          ? `${entry.ts} `
          : '';
    return `${at}${[entry.msg, entry.error].filter(Boolean).join(': ')}`;
  }
  return undefined;
}

/**
 * Caddy running (with its log's last error when it is not), answering on its https port, and
 * able to read the operator's certificate and key (`--tls-cert`/`--tls-key`).
 */
export function caddyChecks(layout: HostLayout, settings: Settings): Check[] {
  const service = caddyService(layout);
  const httpsPort = Number(settings.ATRIUM_INSTALL_HTTPS_PORT ?? 443);
  const address = loopbackOf(settings.ATRIUM_INSTALL_LISTEN);
  const start = caddyCommand(layout, 'start');
  const readLog = `tail -n 20 ${layout.caddyLog}`;
  const checks: Check[] = [
    {
      name: 'Caddy running',
      async run() {
        const state = await serviceState(layout, { unit: service.name, pidFile: service.pidFile });
        if (state.running) return pass(state.detail);
        const error = await lastCaddyError(layout.caddyLog);
        const why = error ? `; its log's last error: ${error}` : `; no error in its log ${layout.caddyLog}`;
        return fail(`${state.detail}${why}`, `${start}; if it stops again, ${readLog}`);
      },
    },
    {
      name: 'Caddy listening',
      async run() {
        const answer = await connects({ host: address, port: httpsPort });
        if (answer.ok) return pass(`https on ${address}:${httpsPort}`);
        const state = await serviceState(layout, { unit: service.name, pidFile: service.pidFile });
        return fail(
          `nothing answers on ${address}:${httpsPort} (${answer.code}): the console, webmail and /dav/ are unreachable`,
          state.running ? `${caddyCommand(layout, 'restart')}; then ${readLog}` : start,
        );
      },
    },
  ];
  const key = settings.ATRIUM_INSTALL_TLS_KEY;
  const cert = settings.ATRIUM_INSTALL_TLS_CERT;
  if (key && cert) {
    checks.push({
      name: 'Caddy reads the TLS key',
      run: async () => caddyReadsKey(layout, { cert, key }),
    });
  }
  return checks;
}

function caddyReadsKey(layout: HostLayout, files: { cert: string; key: string }) {
  const caddy = accountOf('caddy');
  const reinstall = `npm run atrium -- install${layout.root === '/' ? '' : ` --root ${layout.root}`} --tls-cert <certificate> --tls-key <key>`;
  if (!caddy) return fail('there is no user caddy on this host', 'apt-get install caddy');
  const restart = caddyCommand(layout, 'restart');
  for (const file of [files.key, files.cert]) {
    const access = canRead(caddy, file);
    if (access.ok) continue;
    if (access.reason === 'missing') {
      return fail(`${access.path} does not exist`, `give install the files it should serve: ${reinstall}`);
    }
    const where = `${access.path} (${ownerAndMode(access.stat)})`;
    // A directory its group may search (Debian's /etc/ssl/private, group ssl-cert): caddy joins
    // that group. The files themselves Caddy reads as their owner, as install wants them.
    const joinGroup = access.reason === 'directory' && access.stat.gid !== 0 && access.stat.mode & 0o010;
    const fix = joinGroup
      ? `adduser caddy ${groupName(access.stat.gid)}; ${restart}`
      : access.reason === 'directory'
        ? `chmod o+x ${access.path}; ${restart}`
        : `chown caddy ${access.path} && chmod ${file === files.key ? '600' : '644'} ${access.path}; ${restart}`;
    return fail(
      access.reason === 'directory'
        ? `user caddy cannot enter ${where}, so it cannot read ${file}: Caddy does not start`
        : `user caddy cannot read ${where}: Caddy does not start`,
      fix,
    );
  }
  return keyNotWorldReadable(files.key, caddy);
}

function keyNotWorldReadable(key: string, caddy: Account) {
  const stat = statSync(key);
  if (stat.mode & 0o077) {
    const who = stat.mode & 0o004 ? 'every user on this host' : 'its group';
    return fail(
      `${key} (${ownerAndMode(stat)}) is readable by ${who}`,
      `chmod 600 ${key}${stat.uid === caddy.uid ? '' : ` && chown caddy ${key}`}`,
    );
  }
  return pass(`user caddy reads ${key} (${ownerAndMode(stat)}); no other user can`);
}

/** MAIL_HOST's certificate as Caddy on this host serves it (https port, SNI MAIL_HOST). */
export function mailHostTarget(layout: HostLayout, settings: Settings, mailHost: string): CertificateTarget {
  const cert = settings.ATRIUM_INSTALL_TLS_CERT;
  return {
    host: mailHost,
    port: Number(settings.ATRIUM_INSTALL_HTTPS_PORT ?? 443),
    protocol: 'https',
    address: loopbackOf(settings.ATRIUM_INSTALL_LISTEN),
    renewedBy: cert
      ? `replace ${cert} (or let Caddy obtain one: install without --tls-cert), then ${caddyCommand(layout, 'reload')}`
      : `Caddy renews it: tail -n 50 ${layout.caddyLog}`,
  };
}

/**
 * What a device of this host's users trusts: the system's roots, plus Caddy's own CA with
 * --internal-tls and the operator's certificate (a private CA's or a self-signed one, which the
 * devices are given). Undefined: the system's roots alone.
 */
export function trustedRoots(layout: HostLayout, settings: Settings): string[] | undefined {
  const extra = [
    settings.ATRIUM_INSTALL_INTERNAL_TLS === 'true'
      ? path.join(layout.caddyDataDir, 'pki/authorities/local/root.crt')
      : undefined,
    settings.ATRIUM_INSTALL_TLS_CERT,
  ].flatMap((file) => {
    if (!file) return [];
    try {
      return [readFileSync(file, 'utf8')];
    } catch {
      return [];
    }
  });
  return extra.length > 0 ? [...rootCertificates, ...extra] : undefined;
}
