import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HostLayout } from './host-layout.ts';

/**
 * The operator log, `<logDir>/operations.log`: one line per backup, verify and restore, whether
 * cron, the timer or a person ran it, so that doctor can say when the last good backup was
 * without the repository's password or a minute of restic's time. A line is
 *
 *   2026-11-27T03:12:09Z backup ok Backup 1a2b3c4d: 3.7 MiB added (…)
 *   2026-11-27T03:14:40Z verify failed Snapshot 1a2b3c4d: Table users: rows differ (checksum) …
 *
 * the time (UTC, whole seconds), the operation, `ok` or `failed`, and one line of detail: the
 * command's summary or the problem that stopped it. Lines are only ever appended; at a few a day
 * the file stays small enough to read whole.
 */
export const OPERATIONS = ['backup', 'verify', 'restore'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface OperationEntry {
  time: Date;
  operation: Operation;
  ok: boolean;
  detail: string;
}

export const operationsLogFile = (layout: HostLayout) => path.join(layout.logDir, 'operations.log');

export function formatEntry(entry: OperationEntry): string {
  const time = entry.time.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const detail = entry.detail.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return `${time} ${entry.operation} ${entry.ok ? 'ok' : 'failed'} ${detail}`;
}

const LINE = new RegExp(`^(\\S+) (${OPERATIONS.join('|')}) (ok|failed)(?: (.*))?$`);

/** One line of the log, or undefined for a line that is not one (a hand edit, a torn write). */
export function parseEntry(line: string): OperationEntry | undefined {
  const match = LINE.exec(line.trim());
  if (!match) return undefined;
  const time = new Date(match[1]!);
  if (Number.isNaN(time.getTime())) return undefined;
  return { time, operation: match[2] as Operation, ok: match[3] === 'ok', detail: match[4] ?? '' };
}

/**
 * Appends one line. A host install has not set up has no log directory: nothing is written there
 * (doctor names the missing directory), rather than making one with the wrong owner.
 */
export function appendOperation(layout: HostLayout, entry: OperationEntry): void {
  if (!existsSync(layout.logDir)) return;
  appendFileSync(operationsLogFile(layout), `${formatEntry(entry)}\n`);
}

/** Every entry of the log, oldest first; none when there is no log yet. */
export function readOperations(layout: HostLayout): OperationEntry[] {
  let text: string;
  try {
    text = readFileSync(operationsLogFile(layout), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return text.split('\n').flatMap((line) => parseEntry(line) ?? []);
}

/** The latest entry of one operation, only successful ones with `{ ok: true }`. */
export function latestOperation(
  entries: OperationEntry[],
  operation: Operation,
  filter: { ok?: boolean } = {},
): OperationEntry | undefined {
  return entries.findLast(
    (e) => e.operation === operation && (filter.ok === undefined || e.ok === filter.ok),
  );
}

/** What a logged operation reports: whether it succeeded and its one-line summary. */
export interface OperationResult {
  ok: boolean;
  detail: string;
}

/**
 * Runs one operation and appends its outcome. A problem that stops it is logged as `failed` with
 * its message's first line and thrown again, so the CLI still prints it and exits 1.
 */
export async function logOperation(
  layout: HostLayout,
  operation: Operation,
  run: () => Promise<OperationResult>,
): Promise<boolean> {
  let result: OperationResult;
  try {
    result = await run();
  } catch (error) {
    const message = (error as Error).message?.split('\n')[0] || String(error);
    appendOperation(layout, { time: new Date(), operation, ok: false, detail: message });
    throw error;
  }
  appendOperation(layout, { time: new Date(), operation, ...result });
  return result.ok;
}
