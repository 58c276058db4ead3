import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { hasSystemd } from '../service-control.ts';
import { fail, pass, type Check } from './check.ts';

/**
 * Where PID 1 is not systemd, cron runs what systemd's path units and timers run elsewhere: the
 * DKIM copy, the certificate copy and the daily backup (install's files in /etc/cron.d). Only on
 * the host itself: a host installed with --root shares this machine's cron.
 */
export function cronChecks(layout: HostLayout): Check[] {
  if (layout.root !== '/' || hasSystemd()) return [];
  return [cronCheck()];
}

/** A process named cron in `proc` (/proc; a test's directory of `<pid>/comm` files). */
export function cronCheck(proc = '/proc'): Check {
  return {
    name: 'cron',
    async run() {
      const pids = (await readdir(proc).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name));
      const names = await Promise.all(
        pids.map((pid) => readFile(path.join(proc, pid, 'comm'), 'utf8').catch(() => '')),
      );
      const at = names.findIndex((name) => name.trim() === 'cron');
      if (at >= 0) return pass(`runs (pid ${pids[at]}): the DKIM copy, the certificate copy and backups run`);
      return fail(
        'no cron process: DKIM copies, the certificate copy and backups do not run',
        '/etc/init.d/cron start',
      );
    },
  };
}
