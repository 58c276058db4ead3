import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { HEADER } from './service-files.ts';

/**
 * /etc/logrotate.d/atrium: Atrium's logs and, with mail, Postfix's and Dovecot's files, daily,
 * fourteen days kept, compressed. Debian's logrotate runs it from /etc/cron.daily/logrotate
 * where PID 1 is not systemd (install starts cron there) and from logrotate.timer where it is.
 *
 * Each daemon lets go of its file its own way: the init script's shell holds atrium.log open
 * (O_APPEND), so it is copied and truncated; Postfix's postlogd opens the new file after a
 * reload, Dovecot after `doveadm log reopen`. A daemon that is not running fails quietly.
 */
export function logrotateConfig(layout: HostLayout, o: { mail: boolean }): string {
  const common = ['daily', 'rotate 14', 'missingok', 'notifempty', 'compress', 'delaycompress'];
  const block = (files: string, lines: string[]) =>
    `${files} {\n${[...common, ...lines].map((line) => `    ${line}`).join('\n')}\n}\n`;
  const blocks = [block(`${layout.logDir}/*.log`, ['copytruncate', 'su atrium adm'])];
  if (o.mail) {
    const postfix = path.join(layout.mailLogDir, 'postfix.log');
    const dovecot = path.join(layout.mailLogDir, 'dovecot.log');
    blocks.push(
      block(postfix, [
        'postrotate',
        `    /usr/sbin/postfix -c ${layout.postfixDir} reload >/dev/null 2>&1 || true`,
        'endscript',
      ]),
      block(dovecot, [
        'postrotate',
        `    /usr/bin/doveadm -c ${path.join(layout.dovecotDir, 'dovecot.conf')} log reopen >/dev/null 2>&1 || true`,
        'endscript',
      ]),
    );
  }
  return `${HEADER}${blocks.join('\n')}`;
}
