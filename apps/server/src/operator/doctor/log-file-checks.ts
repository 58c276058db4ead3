import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { fail, pass, warn, type Check } from './check.ts';
import { reinstallCommand } from './install-drift.ts';
import { caddyCommand } from './caddy-checks.ts';
import { serviceCommand } from './service-commands.ts';

/** A log past this size means logrotate does not run (it rotates daily, keeping 14). */
export const LARGE_LOG_BYTES = 500 * 1024 ** 2;

const size = (bytes: number) =>
  bytes >= 1024 ** 2 ? `${(bytes / 1024 ** 2).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} kB`;

interface LogFile {
  file: string;
  /** Who writes it, for "not written yet", and the command that restarts it. */
  writer: string;
  restart: string;
}

/**
 * Atrium's, Postfix's, Dovecot's and Caddy's log files: each directory there and writable by its
 * owner (✗: that daemon logs nowhere), each file written (⚠ on a fresh host, before the daemon
 * first logs) and none grown past 500 MB (⚠: logrotate does not run).
 */
export function logFileChecks(layout: HostLayout, o: { mail: boolean }): Check[] {
  const restart = (service: string) => serviceCommand(layout.root, service, 'restart');
  const files: LogFile[] = [
    { file: path.join(layout.logDir, 'atrium.log'), writer: 'Atrium', restart: restart('atrium') },
    ...(o.mail
      ? [
          {
            file: path.join(layout.mailLogDir, 'postfix.log'),
            writer: 'Postfix',
            restart: restart('postfix'),
          },
          {
            file: path.join(layout.mailLogDir, 'dovecot.log'),
            writer: 'Dovecot',
            restart: restart('dovecot'),
          },
        ]
      : []),
    { file: layout.caddyLog, writer: 'Caddy', restart: caddyCommand(layout, 'restart') },
  ];
  return [
    {
      name: 'Log files',
      async run() {
        const looks = await Promise.all(files.map(look));
        const failures = looks.filter((l) => l.kind === 'fail');
        if (failures.length > 0) {
          const fixes = [...new Set(failures.map((l) => l.fix(layout)))];
          return fail(failures.map((l) => l.text).join('; '), fixes.join('; '));
        }
        const warnings = looks.filter((l) => l.kind === 'warn');
        if (warnings.length > 0) {
          const fixes = [...new Set(warnings.map((l) => l.fix(layout)))];
          return warn(warnings.map((l) => l.text).join('; '), fixes.join('; '));
        }
        return pass(looks.map((l) => l.text).join(', '));
      },
    },
  ];
}

interface Look {
  kind: 'pass' | 'warn' | 'fail';
  text: string;
  fix: (layout: HostLayout) => string;
}

async function look({ file, writer, restart }: LogFile): Promise<Look> {
  const dir = path.dirname(file);
  const dirStat = await stat(dir).catch(() => undefined);
  if (!dirStat?.isDirectory()) {
    return { kind: 'fail', text: `${dir} is missing: ${writer} logs nowhere`, fix: reinstallCommand };
  }
  if (!(dirStat.mode & 0o200)) {
    return {
      kind: 'fail',
      text: `${dir} is not writable by its owner (mode 0${(dirStat.mode & 0o7777).toString(8)}): ${writer} logs nowhere`,
      fix: () => `chmod u+w ${dir}`,
    };
  }
  const fileStat = await stat(file).catch(() => undefined);
  if (!fileStat) {
    return {
      kind: 'warn',
      text: `${file} not written yet`,
      fix: () => `it appears when ${writer} first logs; if it stays missing: ${restart}`,
    };
  }
  if (fileStat.size > LARGE_LOG_BYTES) {
    return {
      kind: 'warn',
      text: `${file} is ${size(fileStat.size)}, over ${size(LARGE_LOG_BYTES)}: logrotate does not run`,
      fix: (layout) => `logrotate -f ${path.join(layout.logrotateDir, 'atrium')}`,
    };
  }
  return { kind: 'pass', text: `${path.basename(file)} ${size(fileStat.size)}`, fix: () => '' };
}
