import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { fileOwnership } from './file-access.ts';
import { dkimSyncArgs, dkimSyncScript } from '../install/service-files.ts';
import { fail, pass, type Check } from './check.ts';
import { opendkimSettings } from './mail-daemon-files.ts';

/**
 * "DKIM keys readable by OpenDKIM", by OpenDKIM's own rule. RequireSafeKeys (default yes;
 * opendkim.conf(5): "Refuses to use key files that appear to have unsafe permissions") rejects
 * a key file that is not the executing user's (or root's) or that group or others may access,
 * and a key below a directory someone else could write to — issue 31's log line:
 *   "key data is not secure: /var/lib/atrium/dkim is writeable and owned by uid 993 which is not
 *    the executing uid".
 * So: every key file the KeyTable names exists, is owned by opendkim or root, has no group or
 * other bits, and no directory above it is writable by group, others, or an owner other than
 * opendkim or root. The KeyTable itself must be readable by opendkim.
 */
export function dkimKeyChecks(layout: HostLayout): Check[] {
  return [
    {
      name: 'DKIM keys readable by OpenDKIM',
      async run() {
        const { keyTable } = opendkimSettings(layout.opendkimConf);
        if (!keyTable) return pass('opendkim.conf names no KeyTable: nothing is signed here');
        const fix = `npm run atrium -- install${layout.root === '/' ? '' : ` --root ${layout.root}`} (owners and modes), then ${[dkimSyncScript(layout), ...dkimSyncArgs(layout)].join(' ')} (the root sync that copies the keys for OpenDKIM)`;
        let table: string;
        try {
          table = readFileSync(keyTable, 'utf8');
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          // No table yet: no domain verified, Atrium has not written one; nothing to sign with.
          if (code === 'ENOENT') return pass(`no KeyTable yet at ${keyTable} (no verified domain)`);
          return fail(`KeyTable ${keyTable}: ${code}`, fix);
        }
        const ids = opendkimIds();
        const unsafe: string[] = [];
        const keyFiles = table
          .split('\n')
          .filter((line) => line.trim() && !line.startsWith('#'))
          .map((line) => line.trim().split(/\s+/)[1]?.split(':').slice(2).join(':'))
          .filter((file): file is string => Boolean(file));
        for (const file of [keyTable, ...keyFiles]) {
          const problem = file === keyTable ? tableProblem(file, ids) : keyProblem(file, ids);
          if (problem) unsafe.push(problem);
        }
        for (const dir of ancestors(keyFiles.length > 0 ? keyFiles : [keyTable])) {
          const problem = directoryProblem(dir, ids);
          if (problem) unsafe.push(problem);
        }
        if (unsafe.length === 0)
          return pass(`${keyFiles.length} key file(s) in ${keyTable} pass RequireSafeKeys`);
        return fail(unsafe.join('; '), fix);
      },
    },
  ];
}

interface Ids {
  uid: number | undefined;
  gid: number | undefined;
}

function opendkimIds(): Ids {
  const owners = fileOwnership(true);
  try {
    return { uid: owners.uid('opendkim'), gid: owners.gid('opendkim') };
  } catch {
    return { uid: undefined, gid: undefined };
  }
}

const ownerOk = (uid: number, ids: Ids) => uid === 0 || uid === ids.uid;
const mode = (m: number) => (m & 0o7777).toString(8).padStart(4, '0');

function keyProblem(file: string, ids: Ids): string | undefined {
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    return `${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : (error as Error).message}`;
  }
  if (!ownerOk(stat.uid, ids)) return `${file}: owned by uid ${stat.uid}, not opendkim or root`;
  if (stat.mode & 0o077) return `${file}: mode ${mode(stat.mode)} lets group or others in (expected 0600)`;
  return undefined;
}

/** The KeyTable holds no secret; it only has to be opendkim's to read. */
function tableProblem(file: string, ids: Ids): string | undefined {
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    return `${file}: ${(error as Error).message}`;
  }
  const readable =
    (stat.uid === ids.uid && stat.mode & 0o400) ||
    (stat.gid === ids.gid && stat.mode & 0o040) ||
    stat.mode & 0o004;
  return readable
    ? undefined
    : `${file}: not readable by opendkim (owner uid ${stat.uid}, mode ${mode(stat.mode)})`;
}

function directoryProblem(dir: string, ids: Ids): string | undefined {
  const stat = statSync(dir);
  // No exception for a sticky directory such as /tmp: OpenDKIM refuses any that others may write.
  if (stat.mode & 0o022) return `${dir}: writable by group or others (mode ${mode(stat.mode)})`;
  if (!ownerOk(stat.uid, ids) && stat.mode & 0o200) {
    return `${dir}: writable and owned by uid ${stat.uid}, which is neither opendkim nor root`;
  }
  // OpenDKIM (running as opendkim) must also be able to pass through on its way to the key.
  const passable =
    (stat.uid === ids.uid && stat.mode & 0o100) ||
    (stat.gid === ids.gid && stat.mode & 0o010) ||
    stat.mode & 0o001;
  return passable ? undefined : `${dir}: opendkim cannot enter it (mode ${mode(stat.mode)})`;
}

/** Every directory above the files, up to /, each once. */
function ancestors(files: string[]): string[] {
  const dirs = new Set<string>();
  for (const file of files) {
    for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
      dirs.add(dir);
      if (dir === path.dirname(dir)) break;
    }
  }
  return [...dirs].sort();
}
