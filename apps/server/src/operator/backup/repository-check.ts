import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { resticProblem } from './restic-errors.ts';
import { run, snapshots, type Restic } from './restic.ts';

/**
 * The repository's own integrity, checked by each `backup --verify` with `restic check`: its
 * structure (index, snapshots, trees) every time, and one part of its data read back, the next
 * part each time (`--read-data-subset=n/parts`, restic's packs by the first byte of their id), so
 * every pack is read once per `parts` verifies — within four weeks at the scheduled pace
 * (schedule.ts, checkParts). Where the rotation is, and damage found, are kept in
 * `<backup dir>/repository-check.json` (root's): damage makes every backup into the repository
 * fail (backup.command.ts) and doctor show it, until a check reading all the data passes.
 */
export interface CheckState {
  repository: string;
  /** The part of the data the next check reads, 1 to `parts`. */
  next: number;
  parts: number;
  damaged?: Damage;
}

export interface Damage {
  at: string;
  /** One line per damaged snapshot (and per damage no snapshot uses). */
  lines: string[];
}

export const checkStateFile = (layout: HostLayout) => path.join(layout.backupDir, 'repository-check.json');

/** The state kept for `repository`: a fresh one when the file is for another repository, or none. */
export function readCheckState(layout: HostLayout, repository: string, parts: number): CheckState {
  const file = checkStateFile(layout);
  if (existsSync(file)) {
    try {
      const state = JSON.parse(readFileSync(file, 'utf8')) as CheckState;
      if (state.repository === repository) {
        return { ...state, parts, next: state.next >= 1 && state.next <= parts ? state.next : 1 };
      }
    } catch {
      // A torn write: start the rotation again.
    }
  }
  return { repository, next: 1, parts };
}

function writeCheckState(layout: HostLayout, state: CheckState): void {
  writeFileSync(checkStateFile(layout), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/** Damage the latest check found in `repository`, if any (for backup and doctor). */
export function knownDamage(layout: HostLayout, repository: string): Damage | undefined {
  return readCheckState(layout, repository, 1).damaged;
}

export interface CheckOutcome {
  ok: boolean;
  /** What was read: "part 3 of 4 of the data" or "all the data". */
  read: string;
  damage: string[];
}

/**
 * `restic check` with the next part of the data (all of it after damage was found, so that a
 * pass proves it mended). Damage is mapped to the snapshots holding it; any other failure (a
 * lock, an unreachable server) is thrown as one line, and the rotation stays where it was.
 */
export function checkRepository(layout: HostLayout, restic: Restic, parts: number): CheckOutcome {
  const state = readCheckState(layout, restic.repository, parts);
  const all = parts <= 1 || state.damaged !== undefined;
  const subset = all ? ['--read-data'] : [`--read-data-subset=${state.next}/${parts}`];
  const read = all ? 'all the data' : `part ${state.next} of ${parts} of the data`;
  const result = run(restic, ['check', ...subset]);
  if (result.status === 0) {
    writeCheckState(layout, {
      repository: restic.repository,
      parts,
      next: all ? 1 : (state.next % parts) + 1,
    });
    return { ok: true, read, damage: [] };
  }
  const stderr = result.stderr || String(result.error);
  // "Fatal: repository contains errors" is damage; anything else kept check from running.
  if (!/repository contains errors/.test(stderr))
    throw resticProblem(restic, 'Backup repository', 'check', stderr);
  const damage = damagedSnapshots(restic, stderr);
  writeCheckState(layout, { ...state, damaged: { at: new Date().toISOString(), lines: damage } });
  return { ok: false, read, damage };
}

const ID = '[0-9a-f]{64}';
const shortId = (id: string) => id.slice(0, 8);

/**
 * restic check's errors as one line per snapshot: which damaged packs (or missing blobs) it
 * holds data in, and which of its files that data belongs to (`restic find --pack` / `--blob`).
 */
export function damagedSnapshots(restic: Restic, stderr: string): string[] {
  const packs = new Set<string>();
  const blobs = new Set<string>();
  for (const line of stderr.split('\n')) {
    for (const m of line.matchAll(new RegExp(`(?:pack|want) (${ID})`, 'gi'))) packs.add(m[1]!);
    for (const m of line.matchAll(new RegExp(`blob (${ID})`, 'gi'))) blobs.add(m[1]!);
  }
  /** Per snapshot: the damaged things it uses and its files that hold them. */
  const bySnapshot = new Map<string, { what: Set<string>; files: Set<string> }>();
  const unused: string[] = [];
  const find = (kind: 'pack' | 'blob', id: string) => {
    const found = run(restic, ['find', '--json', `--${kind}`, id]);
    const hits =
      found.status === 0
        ? (JSON.parse(found.stdout || '[]') as { snapshot?: string; path?: string }[]).filter(
            (h) => h.snapshot,
          )
        : [];
    if (hits.length === 0) unused.push(`${kind} ${shortId(id)}`);
    for (const hit of hits) {
      const entry = bySnapshot.get(hit.snapshot!) ?? { what: new Set(), files: new Set() };
      entry.what.add(`${kind} ${shortId(id)}`);
      if (hit.path) entry.files.add(hit.path.replace(/^\//, ''));
      bySnapshot.set(hit.snapshot!, entry);
    }
  };
  for (const id of packs) find('pack', id);
  for (const id of blobs) find('blob', id);

  const times = new Map(snapshotsOrNone(restic).map((s) => [s.id, s.time.toISOString()]));
  const lines = [...bySnapshot]
    .sort(([a], [b]) => (times.get(a) ?? a).localeCompare(times.get(b) ?? b))
    .map(([id, { what, files }]) => {
      const named = [...files].sort();
      const shown = named.slice(0, 3).join(', ') + (named.length > 3 ? ` and ${named.length - 3} more` : '');
      const when = times.has(id) ? ` of ${times.get(id)}` : '';
      return `Snapshot ${shortId(id)}${when}: damaged ${[...what].join(', ')} holds ${shown || 'its data'}`;
    });
  if (unused.length > 0) {
    lines.push(`Damaged ${unused.join(', ')} in no snapshot: restic prune removes it`);
  }
  if (lines.length === 0) {
    // Damage restic names without an id this maps (an index or a snapshot file): its own words.
    const first = stderr
      .split('\n')
      .find((l) => /error|does not match|not found|invalid/i.test(l) && !/^Fatal/.test(l));
    lines.push(`restic check: ${first?.trim() ?? 'repository contains errors'}`);
  }
  return lines;
}

function snapshotsOrNone(restic: Restic) {
  try {
    return snapshots(restic);
  } catch {
    return [];
  }
}
