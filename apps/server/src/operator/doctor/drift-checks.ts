import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { difference, type HostItem } from '../install/host-changes.ts';
import { fileOwnership } from './file-access.ts';
import { fail, pass, type Check } from './check.ts';
import { reinstallCommand } from './install-drift.ts';

const under = (dir: string, file: string) => file.startsWith(`${dir}${path.sep}`);

/**
 * "Configured as mail-config would write them today": each daemon's files compared with what
 * install writes now (content, owner, mode), and the service files (units, init script, cron,
 * Caddyfile) likewise; every file that differs is named. Directories are the modes check's.
 */
export function driftChecks(layout: HostLayout, expected: HostItem[]): Check[] {
  const files = expected.filter((item) => item.kind === 'file');
  const groups: Array<{ name: string; items: HostItem[] }> = [
    { name: 'Postfix configuration', items: files.filter((f) => under(layout.postfixDir, f.path)) },
    { name: 'Dovecot configuration', items: files.filter((f) => under(layout.dovecotDir, f.path)) },
    { name: 'OpenDKIM configuration', items: files.filter((f) => f.path === layout.opendkimConf) },
    {
      name: 'Service files',
      items: files.filter(
        (f) =>
          !under(layout.postfixDir, f.path) &&
          !under(layout.dovecotDir, f.path) &&
          f.path !== layout.opendkimConf &&
          f.path !== layout.settingsFile,
      ),
    },
  ];
  const owners = fileOwnership(process.getuid?.() === 0);
  return groups
    .filter((group) => group.items.length > 0)
    .map((group) => ({
      name: group.name,
      async run() {
        const drifted = group.items.flatMap((item) => {
          const why = difference(item, owners);
          return why ? [why.replace(/^update /, '').replace(/^create (.*)/, '$1 (missing)')] : [];
        });
        if (drifted.length === 0) {
          return pass(
            `${group.items.length} file(s) as install writes them (${group.items.map((i) => path.basename(i.path)).join(', ')})`,
          );
        }
        return fail(
          `differs from what install writes today: ${drifted.join('; ')}`,
          reinstallCommand(layout),
        );
      },
    }));
}
