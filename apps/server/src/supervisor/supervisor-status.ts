import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * What the supervisor writes after each start or replacement of its server, for `update` and
 * `doctor`: the release serving and how the last replacement went.
 */
export interface SupervisorStatus {
  pid: number;
  /** The release directory the serving server runs from (none while nothing serves). */
  serving: string | null;
  /** The last replacement asked for (SIGHUP): its release, when it ended and how. */
  lastReload: { release: string; at: string; ok: boolean; why?: string } | null;
}

export function writeStatus(file: string, status: SupervisorStatus): void {
  // Renamed into place: a reader never sees half a file.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(status)}\n`);
  renameSync(temporary, file);
}

export function readStatus(file: string): SupervisorStatus | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SupervisorStatus;
  } catch {
    return undefined;
  }
}
