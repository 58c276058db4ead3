import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { difference, type HostItem } from '../install/host-changes.ts';
import { fileOwnership } from './file-access.ts';
import { fail, pass, type Check } from './check.ts';
import { reinstallCommand } from './install-drift.ts';

/** At most this many offending paths are named on a line; the count says how many in all. */
const NAMED = 5;

/** Every path under `root` (itself included, symbolic links not followed) whose mode has any of `bits`. */
function entriesWithBits(root: string, bits: number): string[] {
  const found: string[] = [];
  const visit = (entry: string) => {
    let stat;
    try {
      stat = lstatSync(entry);
    } catch {
      return;
    }
    if (stat.isSymbolicLink()) return;
    if (stat.mode & bits) found.push(`${entry} ${(stat.mode & 0o7777).toString(8).padStart(4, '0')}`);
    if (stat.isDirectory()) for (const name of readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(root);
  return found;
}

const listed = (entries: string[]) =>
  entries.slice(0, NAMED).join(', ') + (entries.length > NAMED ? ` and ${entries.length - NAMED} more` : '');

/**
 * Owners and modes of what install made (each daemon's directories, the settings file), DATA_DIR
 * readable by Atrium alone (the database and its secret), and MAIL_DKIM_DIR, where Atrium writes
 * the private keys, readable by nobody else.
 */
export function modeChecks(layout: HostLayout, expected: HostItem[]): Check[] {
  const owners = fileOwnership(process.getuid?.() === 0);
  const dirs = expected.filter((item) => item.kind === 'dir');
  const settingsFile = expected.filter((item) => item.kind === 'file' && item.path === layout.settingsFile);
  const installed = (name: string, items: HostItem[]): Check => ({
    name,
    async run() {
      const wrong = items.flatMap((item) => difference(item, owners) ?? []);
      if (wrong.length === 0) return pass(`${items.length} as install makes them (owners and modes)`);
      return fail(listed(wrong), reinstallCommand(layout));
    },
  });
  return [
    installed('Directories', dirs),
    installed('Settings file', settingsFile),
    {
      name: 'DATA_DIR modes',
      async run() {
        const open = entriesWithBits(layout.dataDir, 0o077);
        if (open.length === 0) return pass(`${layout.dataDir}: nothing readable by group or others`);
        return fail(`readable by group or others: ${listed(open)}`, `chmod -R go-rwx ${layout.dataDir}`);
      },
    },
    {
      name: 'DKIM key modes',
      async run() {
        // Atrium's own copies (MAIL_DKIM_DIR): the sync copies them for OpenDKIM as root, so no
        // one but Atrium needs to read them.
        const open = entriesWithBits(layout.dkimDir, 0o027);
        if (open.length === 0) return pass(`${layout.dkimDir}: nothing others can read or group can write`);
        return fail(`too open: ${listed(open)}`, `chmod -R o-rwx,g-w ${layout.dkimDir}`);
      },
    },
  ];
}
