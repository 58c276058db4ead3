import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { HEADER } from './service-files.ts';

// One certificate for the web and for mail (issue 40): Caddy obtains and renews it for MAIL_HOST
// (ACME, or its own CA with --internal-tls), or reads the operator's file; deploy/atrium-tls-sync
// copies it every minute to where Postfix and Dovecot read it, and reloads them when it changed.

/**
 * The operator's certificate (--tls-cert), parsed; undefined when there is none or it cannot be
 * read (install refuses such a file first: operator-certificate.ts).
 */
export function operatorCertificate(file: string | undefined): X509Certificate | undefined {
  if (!file) return undefined;
  try {
    return new X509Certificate(readFileSync(file));
  } catch {
    return undefined;
  }
}

/** Whether the certificate is valid for `host` (a DNS name, wildcards as TLS matches them, or an IP). */
export function covers(certificate: X509Certificate | undefined, host: string): boolean {
  if (!certificate) return false;
  return isIP(host) ? certificate.checkIP(host) !== undefined : certificate.checkHost(host) !== undefined;
}

export const tlsSyncScript = (layout: HostLayout) => `${layout.current}/deploy/atrium-tls-sync`;

/**
 * deploy/atrium-tls-sync's arguments: the operator's files when they cover MAIL_HOST, else Caddy's
 * storage; under --root the daemons whose configuration is below the root, never the host's.
 */
export function tlsSyncArgs(
  layout: HostLayout,
  o: { mailHost: string; tls?: { cert: string; key: string }; coversMailHost: boolean },
): string[] {
  const source =
    o.tls && o.coversMailHost ? ['-f', o.tls.cert, '-k', o.tls.key] : ['-c', layout.caddyDataDir];
  const daemons =
    layout.root === '/' ? [] : ['-P', layout.postfixDir, '-D', path.join(layout.dovecotDir, 'dovecot.conf')];
  return [...source, ...daemons, o.mailHost, layout.mailTlsDir];
}

const command = (layout: HostLayout, args: string[]) => [tlsSyncScript(layout), ...args].join(' ');

export function tlsServiceUnit(layout: HostLayout, args: string[]): string {
  return `${HEADER}[Unit]
Description=Give Postfix and Dovecot the certificate Caddy holds for the mail host
After=caddy.service

[Service]
Type=oneshot
ExecStart=${command(layout, args)}
`;
}

/** Every minute: a renewal reaches the mail daemons within a minute (it changes nothing otherwise). */
export function tlsTimerUnit(): string {
  return `${HEADER}[Unit]
Description=Copy the mail host's certificate to Postfix and Dovecot every minute

[Timer]
OnBootSec=30s
OnUnitActiveSec=1min
AccuracySec=5s

[Install]
WantedBy=timers.target
`;
}

/** Without systemd: the same every minute from cron. */
export function tlsCron(layout: HostLayout, args: string[]): string {
  return `${HEADER}* * * * * root ${command(layout, args)} >/dev/null\n`;
}
