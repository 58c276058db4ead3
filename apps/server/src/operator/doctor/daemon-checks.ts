import { connect } from 'node:net';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { fail, pass, type Check } from './check.ts';
import {
  dovecotListeners,
  dovecotPidFile,
  opendkimSettings,
  postfixListeners,
  postfixPidFile,
  type Listener,
} from './mail-daemon-files.ts';
import { pidAlive, serviceState } from './probes.ts';
import { serviceCommand } from './service-commands.ts';

const CONNECT_TIMEOUT_MS = 10_000;

interface Daemon {
  label: string;
  service: string;
  pidFile: string;
  listeners: Listener[];
  /** Starts it from install's files: the service on a host, the binary with DIR's config under --root. */
  start: string;
  restart: string;
}

function daemons(layout: HostLayout): Daemon[] {
  const onHost = layout.root === '/';
  const command = (service: string, underRoot: string, action: 'start' | 'restart') =>
    onHost ? serviceCommand('/', service, action) : underRoot;
  const opendkim = opendkimSettings(layout.opendkimConf);
  const postfixStop = `postfix -c ${layout.postfixDir} stop; `;
  return [
    {
      label: 'Postfix',
      service: 'postfix',
      pidFile: postfixPidFile(layout.postfixDir),
      listeners: postfixListeners(layout.postfixDir),
      start: command('postfix', `postfix -c ${layout.postfixDir} start`, 'start'),
      restart: command('postfix', `postfix -c ${layout.postfixDir} reload`, 'restart'),
    },
    {
      label: 'Dovecot',
      service: 'dovecot',
      pidFile: dovecotPidFile(layout.dovecotDir),
      listeners: dovecotListeners(layout.dovecotDir),
      start: command('dovecot', `dovecot -c ${path.join(layout.dovecotDir, 'dovecot.conf')}`, 'start'),
      restart: command(
        'dovecot',
        `doveadm -c ${path.join(layout.dovecotDir, 'dovecot.conf')} reload`,
        'restart',
      ),
    },
    {
      label: 'OpenDKIM',
      service: 'opendkim',
      pidFile: opendkim.pidFile,
      listeners: opendkim.listeners,
      start: command('opendkim', `opendkim -x ${layout.opendkimConf}`, 'start'),
      restart: command(
        'opendkim',
        `kill $(cat ${opendkim.pidFile}); opendkim -x ${layout.opendkimConf}`,
        'restart',
      ),
    },
  ].map((d) => (d.service === 'postfix' && !onHost ? { ...d, restart: `${postfixStop}${d.start}` } : d));
}

export function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: CONNECT_TIMEOUT_MS });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/**
 * Postfix, Dovecot and OpenDKIM: each running (systemd's word on a host with systemd, otherwise
 * the pid file its configuration names) and accepting connections on every address and port its
 * configuration on disk gives it.
 */
export function daemonChecks(layout: HostLayout): Check[] {
  return daemons(layout).flatMap((daemon): Check[] => [
    {
      name: `${daemon.label} running`,
      async run() {
        // systemctl is-active where PID 1 is systemd (asynchronously: the checks beside it keep
        // running), the pid file its configuration names otherwise.
        const state = await serviceState(layout, { unit: daemon.service, pidFile: daemon.pidFile });
        return state.running ? pass(state.detail) : fail(state.detail, daemon.start);
      },
    },
    {
      name: `${daemon.label} listening`,
      async run() {
        if (daemon.listeners.length === 0) {
          return fail(
            'its configuration names no TCP listener',
            'npm run atrium -- install (writes its configuration)',
          );
        }
        const answers = await Promise.all(daemon.listeners.map((l) => accepts(l.host, l.port)));
        const where = (l: Listener) => `${l.label} ${l.host}:${l.port}`;
        const silent = daemon.listeners.filter((_, i) => !answers[i]);
        if (silent.length === 0) return pass(daemon.listeners.map(where).join(', '));
        return fail(
          `nothing answers on ${silent.map(where).join(', ')}`,
          pidAlive(daemon.pidFile)
            ? `${daemon.restart} (and read its log if it still does not)`
            : daemon.start,
        );
      },
    },
  ]);
}
