import { OperatorProblem } from '../operator-problem.ts';
import { latestOperation, type OperationEntry } from '../operations-log.ts';
import type { Settings } from '../settings-file.ts';

/**
 * When the daily backup runs and when it also verifies. Settings (the settings file):
 *   BACKUP_TIME         HH:MM, the host's local time [03:15, a quiet hour]; `off` makes the
 *                       scheduled run do nothing (install writes the timer or cron line anyway,
 *                       so that turning it back on needs no install)
 *   BACKUP_VERIFY_DAYS  a scheduled backup verifies when the last successful verify is older [7]
 */
export type BackupTime = { hour: number; minute: number } | 'off';

export const DEFAULT_BACKUP_TIME = { hour: 3, minute: 15 };

export function backupTime(settings: Settings): BackupTime {
  const value = settings.BACKUP_TIME;
  if (value === undefined) return DEFAULT_BACKUP_TIME;
  if (value === 'off') return 'off';
  const match = /^(\d{1,2}):(\d{2})$/.exec(value);
  const hour = Number(match?.[1]);
  const minute = Number(match?.[2]);
  if (!match || hour > 23 || minute > 59) {
    throw new OperatorProblem(`Setting BACKUP_TIME=${value}: a time of day as HH:MM (24-hour), or off`);
  }
  return { hour, minute };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a scheduled backup should verify: the last successful verify is more than
 * BACKUP_VERIFY_DAYS old, or there is none. A failed verify leaves the last good one as old as it
 * was, so the next night tries again.
 */
export function verifyDue(entries: OperationEntry[], settings: Settings, now: Date): boolean {
  // The setting is read first, so a wrong one is named even before the first verify.
  const days = verifyDays(settings);
  const last = latestOperation(entries, 'verify', { ok: true });
  return !last || now.getTime() - last.time.getTime() > days * DAY_MS;
}

function verifyDays(settings: Settings): number {
  const value = settings.BACKUP_VERIFY_DAYS ?? '7';
  if (!/^\d+$/.test(value))
    throw new OperatorProblem(`Setting BACKUP_VERIFY_DAYS=${value}: a whole number of days`);
  return Number(value);
}

/**
 * Into how many parts each verify's `restic check` divides the repository's data, reading the
 * next one each time (repository-check.ts): as many as verifies run in four weeks, so every pack
 * is read back within a month — 4 at the weekly default, 28 when verifying daily.
 */
export function checkParts(settings: Settings): number {
  return Math.max(1, Math.floor(28 / Math.max(1, verifyDays(settings))));
}
