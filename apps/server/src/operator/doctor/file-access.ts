import { readFileSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { hostOwnership, type Ownership } from '../install/host-changes.ts';

/**
 * Whether a system user may read a file, computed as the kernel decides it (owner, then group,
 * then others; every directory on the way searchable) from the file's stat and the user's groups
 * in /etc/passwd and /etc/group: no process per question, so a doctor run stays quick. ACLs are
 * not read (install sets none).
 */
export interface Account {
  name: string;
  uid: number;
  /** The primary group and every group that lists the user. */
  gids: Set<number>;
}

const readIfThere = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** The user's uid and groups, or undefined when /etc/passwd has no such user. */
export function accountOf(user: string, etc = '/etc'): Account | undefined {
  const entry = readIfThere(path.join(etc, 'passwd'))
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === user);
  if (!entry) return undefined;
  const gids = new Set([Number(entry[3])]);
  for (const line of readIfThere(path.join(etc, 'group')).split('\n')) {
    const [, , gid, members] = line.split(':');
    if (gid !== undefined && members?.split(',').includes(user)) gids.add(Number(gid));
  }
  return { name: user, uid: Number(entry[2]), gids };
}

export const octal = (mode: number) => `0${(mode & 0o7777).toString(8)}`;

/** The permission bits (r=4, w=2, x=1) `account` gets on a file with `stat`. */
export function permissionsFor(account: Account, stat: Stats): number {
  if (account.uid === 0) return 7;
  if (stat.uid === account.uid) return (stat.mode >> 6) & 7;
  if (account.gids.has(stat.gid)) return (stat.mode >> 3) & 7;
  return stat.mode & 7;
}

export type Access =
  | { ok: true }
  | { ok: false; reason: 'missing'; path: string }
  | { ok: false; reason: 'directory'; path: string; stat: Stats }
  | { ok: false; reason: 'file'; path: string; stat: Stats };

/** Whether `account` can read `file`: every directory above it searchable (x), the file readable (r). */
export function canRead(account: Account, file: string): Access {
  const resolved = path.resolve(file);
  const dirs: string[] = [];
  for (let dir = path.dirname(resolved); ; dir = path.dirname(dir)) {
    dirs.unshift(dir);
    if (dir === path.dirname(dir)) break;
  }
  for (const dir of dirs) {
    let stat: Stats;
    try {
      stat = statSync(dir);
    } catch {
      return { ok: false, reason: 'missing', path: dir };
    }
    if (!(permissionsFor(account, stat) & 1)) return { ok: false, reason: 'directory', path: dir, stat };
  }
  let stat: Stats;
  try {
    stat = statSync(resolved);
  } catch {
    return { ok: false, reason: 'missing', path: resolved };
  }
  if (!(permissionsFor(account, stat) & 4)) return { ok: false, reason: 'file', path: resolved, stat };
  return { ok: true };
}

/** `root:ssl-cert 0640`: a file's owner, group and mode as ls shows them. */
export function ownerAndMode(stat: Stats, etc = '/etc'): string {
  const name = (file: string, id: number) =>
    readIfThere(path.join(etc, file))
      .split('\n')
      .map((line) => line.split(':'))
      .find((fields) => Number(fields[2]) === id && fields[0])?.[0] ?? String(id);
  return `${name('passwd', stat.uid)}:${name('group', stat.gid)} ${octal(stat.mode)}`;
}

/** A group's name, for a fix (`usermod -aG <name> caddy`). */
export function groupName(gid: number, etc = '/etc'): string {
  return (
    readIfThere(path.join(etc, 'group'))
      .split('\n')
      .map((line) => line.split(':'))
      .find((fields) => Number(fields[2]) === gid && fields[0])?.[0] ?? String(gid)
  );
}

/** name → id from an /etc/passwd- or /etc/group-shaped file. */
function idsOf(file: string): Map<string, number> {
  const ids = new Map<string, number>();
  for (const line of readIfThere(file).split('\n')) {
    const [name, , id] = line.split(':');
    if (name && id !== undefined && /^\d+$/.test(id)) ids.set(name, Number(id));
  }
  return ids;
}

/**
 * install's Ownership (users' and groups' ids) for doctor, from /etc/passwd and /etc/group read
 * once: the checks comparing owners no longer start a getent process per name, each blocking the
 * event loop (issue 40: 9 s on a busy host). A name the files lack (another NSS source) is asked
 * of getent as install asks it.
 */
export function fileOwnership(chown: boolean, etc = '/etc'): Ownership {
  const users = idsOf(path.join(etc, 'passwd'));
  const groups = idsOf(path.join(etc, 'group'));
  const fallback = hostOwnership(chown);
  return {
    chown,
    uid: (user) => users.get(user) ?? fallback.uid(user),
    gid: (group) => groups.get(group) ?? fallback.gid(group),
  };
}
