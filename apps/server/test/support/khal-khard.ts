import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

// Debian's khal and khard reading the collections a vdirsyncer client synced into `dir`, as a
// person would read their calendar and address book after a sync. Neither touches the network.

function run(command: string, args: string[], home: string): string {
  const result = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, HOME: home } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** `khal list <day> 1d` over the local copy of one calendar (dates as YYYY-MM-DD, times in UTC). */
export function khalList(dir: string, calendar: string, day: string): string {
  const config = path.join(dir, 'khal.conf');
  writeFileSync(
    config,
    [
      '[calendars]',
      '[[atrium]]',
      `path = ${path.join(dir, 'calendars', calendar)}`,
      '[sqlite]',
      `path = ${path.join(dir, 'khal.db')}`,
      '[locale]',
      'local_timezone = UTC',
      'default_timezone = UTC',
      'dateformat = %Y-%m-%d',
      'longdateformat = %Y-%m-%d',
      '',
    ].join('\n'),
  );
  return run('/usr/bin/khal', ['-c', config, 'list', day, '1d'], dir);
}

/** `khard list` over the local copy of one address book. */
export function khardList(dir: string, addressBook: string): string {
  const config = path.join(dir, 'khard.conf');
  writeFileSync(config, `[addressbooks]\n[[atrium]]\npath = ${path.join(dir, 'contacts', addressBook)}\n`);
  return run('/usr/bin/khard', ['-c', config, 'list'], dir);
}
