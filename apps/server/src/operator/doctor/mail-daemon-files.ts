import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What the mail daemons' configuration files on disk say about where each listens and keeps its
 * pid: read from the files the daemons themselves read, so "listening where the configuration
 * says" means the configuration in force, drifted or not.
 */
export interface Listener {
  /** `postfix smtp`, `dovecot imap`… for the line. */
  label: string;
  host: string;
  port: number;
}

export const readIfThere = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

const SERVICE_PORTS: Record<string, number> = { smtp: 25, submission: 587, smtps: 465, submissions: 465 };

/** A wildcard address is reached on loopback. */
const reachable = (host: string | undefined) =>
  !host || host === '*' || host === '0.0.0.0' || host === 'all' ? '127.0.0.1' : host.replace(/^\[|\]$/g, '');

/** master.cf's inet services: `[host:]port inet … smtpd` and their `-o` lines. */
export function postfixListeners(postfixDir: string): Listener[] {
  const text = readIfThere(path.join(postfixDir, 'master.cf')) ?? '';
  const listeners: Listener[] = [];
  // A line starting with white space continues the entry above it (master(5)).
  for (const entry of text.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const fields = entry.split(/\s+/);
    if (entry.startsWith('#') || fields[1] !== 'inet') continue;
    const service = fields[0]!;
    const at = service.lastIndexOf(':');
    const portName = at >= 0 ? service.slice(at + 1) : service;
    const port = /^\d+$/.test(portName) ? Number(portName) : SERVICE_PORTS[portName];
    if (!port) continue;
    const name = /syslog_name=postfix\/(\w+)/.exec(entry)?.[1] ?? 'smtpd';
    listeners.push({
      label: `postfix ${name}`,
      host: reachable(at >= 0 ? service.slice(0, at) : undefined),
      port,
    });
  }
  return listeners;
}

/** The pid file of Postfix's master: `<queue_directory>/pid/master.pid`. */
export function postfixPidFile(postfixDir: string): string {
  const main = readIfThere(path.join(postfixDir, 'main.cf')) ?? '';
  const queue = /^queue_directory\s*=\s*(\S+)/m.exec(main)?.[1] ?? '/var/spool/postfix';
  return path.join(queue, 'pid', 'master.pid');
}

/** dovecot.conf's `inet_listener` blocks (port 0 is off), with `listen` as their default address. */
export function dovecotListeners(dovecotDir: string): Listener[] {
  const text = readIfThere(path.join(dovecotDir, 'dovecot.conf')) ?? '';
  const listen = /^listen\s*=\s*(\S+)/m.exec(text)?.[1];
  const listeners: Listener[] = [];
  let service = '';
  let inListener: { name: string; port?: number; address?: string } | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const opened = /^service\s+(\S+)\s*\{/.exec(line);
    if (opened) service = opened[1]!;
    const listener = /^inet_listener\s*(\S*)\s*\{/.exec(line);
    if (listener) inListener = { name: listener[1] || service };
    else if (inListener && /^port\s*=/.test(line)) inListener.port = Number(line.split('=')[1]);
    else if (inListener && /^address\s*=/.test(line))
      inListener.address = line
        .split('=')[1]!
        .trim()
        .split(/[\s,]+/)[0];
    else if (inListener && line === '}') {
      if (inListener.port) {
        listeners.push({
          label: `dovecot ${inListener.name}`,
          host: reachable(inListener.address ?? listen),
          port: inListener.port,
        });
      }
      inListener = undefined;
    }
  }
  return listeners;
}

/** Dovecot's master writes `<base_dir>/master.pid`. */
export function dovecotPidFile(dovecotDir: string): string {
  const text = readIfThere(path.join(dovecotDir, 'dovecot.conf')) ?? '';
  return path.join(/^base_dir\s*=\s*(\S+)/m.exec(text)?.[1] ?? '/run/dovecot', 'master.pid');
}

/** opendkim.conf's `Socket inet:port@host`, its PidFile and its KeyTable. */
export function opendkimSettings(opendkimConf: string): {
  listeners: Listener[];
  pidFile: string;
  keyTable: string | undefined;
  requireSafeKeys: boolean;
} {
  const text = readIfThere(opendkimConf) ?? '';
  const setting = (name: string) => new RegExp(`^${name}\\s+(\\S+)`, 'mi').exec(text)?.[1];
  const socket = /^inet6?:(\d+)(?:@(\S+))?$/.exec(setting('Socket') ?? '');
  const host = socket?.[2] === 'localhost' ? '127.0.0.1' : socket?.[2];
  return {
    listeners: socket ? [{ label: 'opendkim milter', host: reachable(host), port: Number(socket[1]) }] : [],
    pidFile: setting('PidFile') ?? '/run/opendkim/opendkim.pid',
    keyTable: setting('KeyTable')?.replace(/^file:/, ''),
    requireSafeKeys: !/^(no|false|0)$/i.test(setting('RequireSafeKeys') ?? 'yes'),
  };
}
