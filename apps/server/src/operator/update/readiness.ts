import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from '../host-layout.ts';
import { controlService, hasSystemd } from '../service-control.ts';
import type { Settings } from '../settings-file.ts';

/**
 * Whether the service became ready after a (re)start, and if not, why: the log lines it wrote
 * since. The log is the init script's file under --root or without systemd, the journal with it.
 */
export interface LogMark {
  file?: string;
  offset?: number;
  since: Date;
}

export function markLog(layout: HostLayout): LogMark {
  const since = new Date();
  if (layout.root === '/' && hasSystemd()) return { since };
  const file = path.join(layout.logDir, 'atrium.log');
  let offset = 0;
  try {
    offset = statSync(file).size;
  } catch {
    // No log yet: everything in it will be new.
  }
  return { file, offset, since };
}

/** What the service wrote to its log since `mark`. */
export function logSince(mark: LogMark): string[] {
  if (mark.file === undefined) {
    const seconds = Math.floor(mark.since.getTime() / 1000);
    const run = spawnSync(
      'journalctl',
      ['-u', 'atrium', '--since', `@${seconds}`, '-o', 'cat', '--no-pager'],
      {
        encoding: 'utf8',
      },
    );
    return (run.stdout ?? '').split('\n').filter((line) => line.trim() !== '');
  }
  let fd: number;
  try {
    fd = openSync(mark.file, 'r');
  } catch {
    return [];
  }
  try {
    const size = statSync(mark.file).size;
    const start = size < (mark.offset ?? 0) ? 0 : (mark.offset ?? 0);
    const buffer = Buffer.alloc(Math.min(size - start, 256 * 1024));
    // The tail is what explains a failure; a long start-up log is cut from the front.
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    return buffer
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
  } finally {
    closeSync(fd);
  }
}

/**
 * The one line that says why a server did not start: Node's `Error: …` line of an uncaught
 * exception, else the last error the logger wrote (level 50 and up), else the last line.
 */
export function failureReason(lines: string[]): string | undefined {
  const thrown = lines.findLast((line) => /^\w*(Error|Exception)\b.*:/.test(line.trim()));
  if (thrown) return thrown.trim();
  for (const line of lines.toReversed()) {
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
      if ((entry.level ?? 0) >= 50) return entry.err?.message ?? entry.msg ?? line;
    } catch {
      // Not a logger line.
    }
  }
  return lines.at(-1)?.trim();
}

export const readyUrl = (settings: Settings) => {
  const host = !settings.HOST || ['0.0.0.0', '::'].includes(settings.HOST) ? '127.0.0.1' : settings.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${settings.PORT ?? '3000'}/api/ready`;
};

export type Readiness = { ready: true } | { ready: false; why: string };

/**
 * Asks `/api/ready` until it answers 200 or `timeoutMs` passes; stops early when the service is no
 * longer running (a server that throws at start exits at once).
 */
export async function waitForReady(
  layout: HostLayout,
  settings: Settings,
  timeoutMs: number,
): Promise<Readiness> {
  const url = readyUrl(settings);
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (response.status === 200) return { ready: true };
      last = `${url} answered ${response.status}`;
    } catch (error) {
      last = `${url}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`;
    }
    if (!controlService(layout, 'atrium', 'status').ok) {
      return { ready: false, why: 'the server exited' };
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { ready: false, why: `not ready after ${Math.round(timeoutMs / 1000)} s (${last})` };
}
