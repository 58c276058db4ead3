import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { OperatorProblem } from '../operator-problem.ts';

/**
 * What install wants the host to hold, one item at a time. Each item compares itself with the
 * host and, only if it differs, changes it: so a second run changes nothing and says so, and
 * `--dry-run` lists what a run would change without changing it.
 */
export type HostItem =
  | { kind: 'dir'; path: string; owner: string; group: string; mode: number }
  | {
      kind: 'file';
      path: string;
      content: string;
      owner: string;
      group: string;
      mode: number;
      /** Services to restart (or reload) when this file changed. */
      affects?: string[];
    }
  | { kind: 'link'; path: string; target: string; affects?: string[] };

export interface Ownership {
  /** Whether files may be given owners (root only); without it owners are not compared. */
  chown: boolean;
  uid(user: string): number;
  gid(group: string): number;
}

/**
 * A system user's or group's id from the host's account database, each name looked up once: a
 * doctor run compared some 70 items, and one synchronous getent per item and owner blocked its
 * event loop for 9 s on a busy host, past the timeouts of the checks running beside it (issue 40).
 */
export function hostOwnership(chown: boolean): Ownership {
  const known = new Map<string, number>();
  const lookup = (flag: string, name: string) => {
    const key = `${flag}:${name}`;
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const run = spawnSync('getent', [flag, name], { encoding: 'utf8' });
    const id = Number(run.stdout.split(':')[2]);
    if (run.status !== 0 || !Number.isInteger(id)) {
      throw new OperatorProblem(
        `${flag === 'passwd' ? 'User' : 'Group'} ${name}: does not exist on this host`,
      );
    }
    known.set(key, id);
    return id;
  };
  return { chown, uid: (user) => lookup('passwd', user), gid: (group) => lookup('group', group) };
}

const octal = (mode: number) => `0${(mode & 0o7777).toString(8)}`;

/** Why `item` differs from the host (one line), or undefined when the host already holds it. */
export function difference(item: HostItem, owners: Ownership): string | undefined {
  let stat;
  try {
    stat = lstatSync(item.path);
  } catch {
    return item.kind === 'link' ? `link ${item.path} → ${item.target}` : `create ${item.path}`;
  }
  if (item.kind === 'link') {
    if (!stat.isSymbolicLink() || readlinkSync(item.path) !== item.target) {
      return `link ${item.path} → ${item.target}`;
    }
    return undefined;
  }
  const reasons: string[] = [];
  if (item.kind === 'dir' && !stat.isDirectory()) return `${item.path} is not a directory`;
  if (item.kind === 'file') {
    if (!stat.isFile()) return `${item.path} is not a file`;
    if (readFileSync(item.path, 'utf8') !== item.content) reasons.push('content');
  }
  if ((stat.mode & 0o7777) !== item.mode) reasons.push(`mode ${octal(stat.mode)} → ${octal(item.mode)}`);
  if (owners.chown && (stat.uid !== owners.uid(item.owner) || stat.gid !== owners.gid(item.group))) {
    reasons.push(`owner → ${item.owner}:${item.group}`);
  }
  return reasons.length > 0 ? `update ${item.path} (${reasons.join(', ')})` : undefined;
}

/** Makes the host hold `item`; a file is written to a temporary name and renamed (never half written). */
export function apply(item: HostItem, owners: Ownership): void {
  if (item.kind === 'link') {
    const temporary = `${item.path}.new`;
    rmSync(temporary, { force: true });
    symlinkSync(item.target, temporary);
    renameSync(temporary, item.path);
    return;
  }
  const setOwnerAndMode = (file: string) => {
    if (owners.chown) chownSync(file, owners.uid(item.owner), owners.gid(item.group));
    // After chown: changing the owner clears set-group-ID bits on some systems.
    chmodSync(file, item.mode);
  };
  if (item.kind === 'dir') {
    mkdirSync(item.path, { recursive: true });
    setOwnerAndMode(item.path);
    return;
  }
  mkdirSync(path.dirname(item.path), { recursive: true });
  const temporary = path.join(path.dirname(item.path), `.${path.basename(item.path)}.atrium-new`);
  writeFileSync(temporary, item.content, { mode: 0o600 });
  setOwnerAndMode(temporary);
  renameSync(temporary, item.path);
}

/** Whether a path exists (as anything). */
export function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}
