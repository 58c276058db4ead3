import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backupTime, verifyDue } from '../../src/operator/backup/schedule.ts';
import { backupOutcome, verifyOutcome, type Scheduler } from '../../src/operator/doctor/backup-checks.ts';
import { hostLayout } from '../../src/operator/host-layout.ts';
import {
  appendOperation,
  formatEntry,
  logOperation,
  operationsLogFile,
  parseEntry,
  readOperations,
  type OperationEntry,
} from '../../src/operator/operations-log.ts';
import { OperatorProblem } from '../../src/operator/operator-problem.ts';

// The operator log's lines, and the rules read from them: when a scheduled backup verifies, and
// when doctor calls the last backup too old (26 hours).

const root = mkdtempSync(path.join(tmpdir(), 'atrium-operations-'));
const layout = hostLayout(root);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const HOUR = 60 * 60 * 1000;
const now = new Date('2026-11-27T08:00:00Z');
const at = (hoursAgo: number) => new Date(now.getTime() - hoursAgo * HOUR);
const entry = (operation: OperationEntry['operation'], ok: boolean, hoursAgo: number, detail = '') => ({
  operation,
  ok,
  time: at(hoursAgo),
  detail,
});
const backupOk = (hoursAgo: number, id = '1a2b3c4d') =>
  entry('backup', true, hoursAgo, `Backup ${id}: 3.7 MiB added (5 tables, 2 mailboxes, 9 MiB read)`);
const scheduler: Scheduler = { name: 'atrium-backup.timer', status: 'systemctl list-timers', off: false };
const command = 'npm run atrium -- backup';

describe('operations.log lines', () => {
  it('are time, operation, outcome and one line of detail, and read back as written', () => {
    const line = formatEntry({
      time: new Date('2026-11-27T03:12:09.456Z'),
      operation: 'verify',
      ok: false,
      detail: 'Snapshot 1a2b3c4d: Table users: rows differ\n  Mailbox a/b: messages differ',
    });
    expect(line).toBe(
      '2026-11-27T03:12:09Z verify failed Snapshot 1a2b3c4d: Table users: rows differ Mailbox a/b: messages differ',
    );
    expect(parseEntry(line)).toEqual({
      time: new Date('2026-11-27T03:12:09Z'),
      operation: 'verify',
      ok: false,
      detail: 'Snapshot 1a2b3c4d: Table users: rows differ Mailbox a/b: messages differ',
    });
    expect(parseEntry('2026-11-27T03:12:09Z backup ok')).toMatchObject({ ok: true, detail: '' });
  });

  it('skips what is not a line of the log', () => {
    for (const line of [
      '',
      'hello',
      'yesterday backup ok Backup 1a2b3c4d',
      '2026-11-27T03:12:09Z update ok',
      '2026-11-27T03:12:09Z backup maybe',
    ]) {
      expect(parseEntry(line), line).toBeUndefined();
    }
  });

  it('appends nothing on a host without its log directory, then one line per operation', async () => {
    appendOperation(layout, backupOk(1));
    expect(readOperations(layout)).toEqual([]);

    mkdirSync(layout.logDir, { recursive: true });
    expect(
      await logOperation(layout, 'backup', async () => ({ ok: true, detail: 'Backup 1a2b3c4d: 1 KiB' })),
    ).toBe(true);
    await expect(
      logOperation(layout, 'restore', async () => {
        throw new OperatorProblem('Deployment /: not empty — restore replaces all of it only with --force');
      }),
    ).rejects.toThrow('not empty');
    writeFileSync(operationsLogFile(layout), `${readFileSync(operationsLogFile(layout), 'utf8')}torn li`);
    expect(readOperations(layout).map((e) => [e.operation, e.ok, e.detail])).toEqual([
      ['backup', true, 'Backup 1a2b3c4d: 1 KiB'],
      ['restore', false, 'Deployment /: not empty — restore replaces all of it only with --force'],
    ]);
  });
});

describe('the schedule', () => {
  it('reads BACKUP_TIME as HH:MM or off, refusing anything else in one line', () => {
    expect(backupTime({})).toEqual({ hour: 3, minute: 15 });
    expect(backupTime({ BACKUP_TIME: '1:05' })).toEqual({ hour: 1, minute: 5 });
    expect(backupTime({ BACKUP_TIME: 'off' })).toBe('off');
    expect(() => backupTime({ BACKUP_TIME: '24:00' })).toThrow(
      'Setting BACKUP_TIME=24:00: a time of day as HH:MM (24-hour), or off',
    );
  });

  it('verifies after a scheduled backup when the last successful verify is more than 7 days old, or never', () => {
    expect(verifyDue([], {}, now)).toBe(true);
    expect(verifyDue([entry('verify', true, 6 * 24)], {}, now)).toBe(false);
    expect(verifyDue([entry('verify', true, 7 * 24 + 1)], {}, now)).toBe(true);
    // A failed verify is no reason to wait a week: the next night tries again.
    expect(verifyDue([entry('verify', true, 8 * 24), entry('verify', false, 1)], {}, now)).toBe(true);
    expect(verifyDue([entry('verify', true, 1)], { BACKUP_VERIFY_DAYS: '0' }, now)).toBe(true);
    expect(() => verifyDue([], { BACKUP_VERIFY_DAYS: 'weekly' }, now)).toThrow(
      'Setting BACKUP_VERIFY_DAYS=weekly: a whole number of days',
    );
  });
});

describe("doctor's backup checks", () => {
  it('fail with no backup yet, naming the command and what schedules it', () => {
    expect(backupOutcome([], now, command, scheduler)).toEqual({
      ok: false,
      detail: 'no backup yet',
      fix: 'npm run atrium -- backup; scheduled daily by atrium-backup.timer',
    });
  });

  it('warn on a host restored from another one until its first backup, for a night at most', () => {
    const restored = entry(
      'restore',
      true,
      2,
      'Restored snapshot 9f8e7d6c of 2026-11-26T03:15:30.112Z: 46 tables',
    );
    expect(backupOutcome([restored], now, command, scheduler)).toEqual({
      ok: true,
      warning: true,
      detail: 'first backup on this host: restored 2 hours ago (snapshot 9f8e7d6c), none taken here yet',
      fix: 'npm run atrium -- backup, or wait for atrium-backup.timer',
    });
    // A failed restore is no restored host; a night without a backup after one is a missed night.
    expect(backupOutcome([entry('restore', false, 2)], now, command, scheduler).detail).toBe('no backup yet');
    expect(
      backupOutcome([{ ...restored, time: new Date(now.getTime() - 27 * 3600_000) }], now, command, scheduler)
        .ok,
    ).toBe(false);
  });

  it('pass up to 26 hours after the last successful backup, and fail after', () => {
    expect(backupOutcome([backupOk(3)], now, command, scheduler)).toEqual({
      ok: true,
      detail: 'Last successful backup 3 hours ago (snapshot 1a2b3c4d)',
    });
    expect(backupOutcome([backupOk(25.9)], now, command, scheduler).ok).toBe(true);
    const old = backupOutcome([backupOk(26.1)], now, command, scheduler);
    expect(old.ok).toBe(false);
    expect(old.detail).toBe('Last successful backup 26 hours ago (snapshot 1a2b3c4d), more than 26 hours');
    expect(old.fix).toContain('systemctl list-timers');
    // Scheduled backups turned off: the operator backs up otherwise.
    expect(backupOutcome([backupOk(50)], now, command, { ...scheduler, off: true }).ok).toBe(true);
  });

  it('fail when the latest backup failed, with its reason and the last good one', () => {
    const failed = backupOutcome(
      [backupOk(20), entry('backup', false, 2, 'restic: not installed — apt-get install restic')],
      now,
      command,
      scheduler,
    );
    expect(failed.ok).toBe(false);
    expect(failed.detail).toBe(
      'the latest backup, 2 hours ago, failed: restic: not installed — apt-get install restic; last successful backup 20 hours ago (snapshot 1a2b3c4d)',
    );
    expect(
      backupOutcome([entry('backup', false, 2, 'Atrium: does not answer')], now, command, scheduler).detail,
    ).toContain('none has succeeded yet');
  });

  it('fail the verify check only when the latest verify failed', () => {
    expect(verifyOutcome([], now, command).ok).toBe(true);
    const good = entry('verify', true, 30, 'Snapshot 1a2b3c4d of … restores as it was taken: 5 tables');
    expect(verifyOutcome([good], now, command)).toEqual({
      ok: true,
      detail: 'snapshot 1a2b3c4d restored as it was taken 30 hours ago',
    });
    const bad = verifyOutcome(
      [good, entry('verify', false, 1, 'Snapshot 9f8e7d6c: Table users: rows differ (checksum)')],
      now,
      command,
    );
    expect(bad.ok).toBe(false);
    expect(bad.detail).toContain('failed: Snapshot 9f8e7d6c: Table users: rows differ (checksum)');
    expect(bad.fix).toContain('npm run atrium -- backup --verify');
  });
});
