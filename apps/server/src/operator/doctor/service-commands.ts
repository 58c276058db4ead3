import path from 'node:path';
import { hostLayout } from '../host-layout.ts';
import { hasSystemd } from '../service-control.ts';

/**
 * The command an operator types to start, restart or inspect a service on this host, for a
 * check's fix: systemctl where PID 1 is systemd, the init script otherwise (containers), and the
 * script below DIR for a host installed with `--root DIR`.
 */
export function serviceCommand(
  root: string,
  name: string,
  action: 'start' | 'stop' | 'restart' | 'reload',
): string {
  if (root === '/' && hasSystemd()) return `systemctl ${action} ${name}`;
  return `${path.join(root, 'etc/init.d', name)} ${action}`;
}

/**
 * Where a service's messages go, for a fix that says "look at why": the journal under systemd;
 * otherwise Atrium's init script writes its own log file (there may be no syslog daemon at all).
 */
export function serviceLog(root: string, name: string): string {
  const layout = hostLayout(root);
  // Caddy writes its own file (the Caddyfile's global log) with or without systemd.
  if (name === 'caddy') return `tail -n 50 ${layout.caddyLog}`;
  if (root === '/' && hasSystemd()) return `journalctl -u ${name} -n 50`;
  const files: Record<string, string> = {
    atrium: path.join(layout.logDir, 'atrium.log'),
    // Postfix's maillog_file and Dovecot's log_path (no syslog daemon needed).
    postfix: path.join(layout.mailLogDir, 'postfix.log'),
    dovecot: path.join(layout.mailLogDir, 'dovecot.log'),
  };
  return `tail -n 50 ${files[name] ?? path.join(root, 'var/log/syslog')}`;
}
