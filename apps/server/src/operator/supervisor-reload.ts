import { readFileSync } from 'node:fs';
import { readStatus } from '../supervisor/supervisor-status.ts';
import type { HostLayout } from './host-layout.ts';
import { controlService } from './service-control.ts';

/** How often the status file is read while a replacement runs. */
const POLL_MS = 200;

/** Whether the service's process is the supervisor (service files from before it ran main.ts). */
export function supervisorRuns(layout: HostLayout): boolean {
  const pid = readStatus(layout.supervisorStatus)?.pid;
  if (!pid) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('supervisor.ts');
  } catch {
    return false;
  }
}

export type Replacement = { ok: true; release: string } | { ok: false; why: string; sent: boolean };

/**
 * Asks the supervisor (supervisor/supervisor.ts) to replace the server with the release `current`
 * links to and the settings file as it is now: SIGHUP through the service (systemctl reload, the
 * init script's reload), then its status file says how it went. On PostgreSQL the old server
 * serves until the new one is ready; a new one that fails never serves.
 */
export async function replaceServer(layout: HostLayout, timeoutMs: number): Promise<Replacement> {
  const before = readStatus(layout.supervisorStatus)?.lastReload?.at;
  const sent = controlService(layout, 'atrium', 'reload');
  if (!sent.ok) return { ok: false, why: `${sent.command} failed: ${sent.output}`, sent: false };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reload = readStatus(layout.supervisorStatus)?.lastReload;
    if (reload && reload.at !== before) {
      return reload.ok
        ? { ok: true, release: reload.release }
        : { ok: false, why: reload.why ?? 'it did not become ready', sent: true };
    }
    if (Date.now() > deadline) return { ok: false, why: 'the supervisor did not answer', sent: true };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
