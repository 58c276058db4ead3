import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { interruptedRun, type LockOwner } from '../backup/backup-lock.ts';
import { knownDamage } from '../backup/repository-check.ts';
import { resticFor } from '../backup/restic.ts';
import { backupTime } from '../backup/schedule.ts';
import type { HostLayout } from '../host-layout.ts';
import { latestOperation, readOperations, type OperationEntry } from '../operations-log.ts';
import { hasSystemd } from '../service-control.ts';
import type { Settings } from '../settings-file.ts';
import { describeAge, fail, pass, warn, type Check, type CheckResult } from './check.ts';

/**
 * A daily backup that is older than this has missed a night (the timer's 30 minutes of random
 * delay and a long run included), which is what the operator wants to hear the next morning.
 */
export const MAX_BACKUP_AGE_MS = 26 * 60 * 60 * 1000;

/** What runs the daily backup here, and how to see whether it did. */
export interface Scheduler {
  name: string;
  status: string;
  /** BACKUP_TIME=off: the operator backs up otherwise, and an old backup is no failure. */
  off: boolean;
}

/**
 * "Backups" and "Backup verify", read from the operator log that every backup and verify writes
 * (operations-log.ts): doctor does not ask restic, which would need the repository's password
 * and, for a remote repository, the network and time.
 */
export function backupChecks(layout: HostLayout, settings: Settings): Check[] {
  const command = `npm run atrium -- backup${layout.root === '/' ? '' : ` --root ${layout.root}`}`;
  return [
    {
      name: 'Backups',
      async run() {
        const systemd = layout.root === '/' && hasSystemd();
        const cronFile = path.join(layout.cronDir, 'atrium-backup');
        const scheduler: Scheduler = {
          name: systemd ? 'atrium-backup.timer' : cronFile,
          status: systemd
            ? 'systemctl list-timers atrium-backup.timer; journalctl -u atrium-backup -n 50'
            : `is cron running (it reads ${cronFile})?`,
          off: backupTime(settings) === 'off',
        };
        const entries = readOperations(layout);
        const killed = interruptedRun(layout);
        if (killed && isLatest(killed, entries)) return interruptedOutcome(killed, new Date(), command);
        return backupOutcome(entries, new Date(), command, scheduler);
      },
    },
    {
      name: 'Backup repository',
      run: async () => repositoryOutcome(layout, settings),
    },
    {
      name: 'Backup verify',
      run: async () => verifyOutcome(readOperations(layout), new Date(), command),
    },
  ];
}

/** Whether the interrupted run began after the log's latest backup or verify ended. */
const isLatest = (owner: LockOwner, entries: OperationEntry[]) =>
  !entries.some((e) => e.operation !== 'restore' && e.time.getTime() >= owner.since.getTime() - 1000);

/** A run lock whose pid is gone: the backup (or verify) was killed, or the host stopped under it. */
export function interruptedOutcome(owner: LockOwner, now: Date, command: string): CheckResult {
  const age = describeAge(now.getTime() - owner.since.getTime());
  return fail(
    `the latest ${owner.operation ?? 'backup'}, started ${age} ago (pid ${owner.pid}), was interrupted: killed, or the host stopped while it ran`,
    `${command} (it removes what the interrupted one left)`,
  );
}

/**
 * Where the snapshots are. ✗ when restic check found the repository damaged (repository-check.ts);
 * ⚠ when it is on the host it protects (below the install root, or on DATA_DIR's file system):
 * a lost disk or host then takes the backups with it.
 */
export function repositoryOutcome(layout: HostLayout, settings: Settings): CheckResult {
  const { repository, passwordFile } = resticFor(layout, settings);
  const damage = knownDamage(layout, repository);
  if (damage) {
    return fail(
      `${repository} is damaged (restic check, ${damage.at.slice(0, 16).replace('T', ' ')} UTC): ${damage.lines.join('; ')}`,
      'see "A damaged repository" in docs/backup.md (backups into it stop until a verify passes)',
    );
  }
  const dataDir = settings.DATA_DIR || layout.dataDir;
  if (onThisHost(repository, layout, dataDir)) {
    return warn(
      `${repository} is on the host it protects (${layout.root === '/' ? `the file system of ${dataDir}` : `below ${layout.root}`}): a lost disk or host loses the backups too`,
      `set BACKUP_REPOSITORY to another machine (sftp:user@host:/path, rest:https://host:8000/atrium) or a mounted disk in ${layout.settingsFile}, and keep a copy of ${passwordFile} off this host (docs/backup.md, "Choosing the repository")`,
    );
  }
  const where = /^(sftp|rest|s3|b2|azure|gs|swift|rclone):/.exec(repository)?.[1];
  return pass(
    `${repository}${where ? ` (${where}, another machine)` : ' (another disk)'}; keep a copy of ${passwordFile} off this host`,
  );
}

function onThisHost(repository: string, layout: HostLayout, dataDir: string): boolean {
  if (!path.isAbsolute(repository)) return false;
  if (layout.root !== '/' && !path.relative(layout.root, repository).startsWith('..')) return true;
  let at = repository;
  while (!existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  try {
    return statSync(at).dev === statSync(dataDir).dev;
  } catch {
    return false;
  }
}

const snapshotOf = (entry: OperationEntry) =>
  /^(?:Backup|Snapshot|Restored snapshot) ([0-9a-f]+)\b/.exec(entry.detail)?.[1];
const ago = (entry: OperationEntry, now: Date) => `${describeAge(now.getTime() - entry.time.getTime())} ago`;

/** The rule, on the log's entries: a latest backup that failed, none, or none within 26 hours is ✗. */
export function backupOutcome(
  entries: OperationEntry[],
  now: Date,
  command: string,
  scheduler: Scheduler,
): CheckResult {
  const attempt = latestOperation(entries, 'backup');
  const good = latestOperation(entries, 'backup', { ok: true });
  const successful =
    good && `successful backup ${ago(good, now)} (snapshot ${snapshotOf(good) ?? 'unknown'})`;
  if (!attempt) {
    // A host restored from another one starts with an empty log but for its restore: its first
    // backup is ahead of it, not missed, until a night has passed without one.
    const restored = latestOperation(entries, 'restore', { ok: true });
    if (restored && now.getTime() - restored.time.getTime() <= MAX_BACKUP_AGE_MS) {
      return warn(
        `first backup on this host: restored ${ago(restored, now)} (snapshot ${snapshotOf(restored) ?? 'unknown'}), none taken here yet`,
        `${command}, or wait for ${scheduler.name}${scheduler.off ? ' (off: BACKUP_TIME=off)' : ''}`,
      );
    }
    return fail(
      'no backup yet',
      `${command}; scheduled daily by ${scheduler.name}${scheduler.off ? ' (off: BACKUP_TIME=off)' : ''}`,
    );
  }
  if (!attempt.ok) {
    return fail(
      `the latest backup, ${ago(attempt, now)}, failed: ${attempt.detail}; ${successful ? `last ${successful}` : 'none has succeeded yet'}`,
      `${command} once what it names is mended`,
    );
  }
  const detail = `Last ${successful}`;
  if (now.getTime() - attempt.time.getTime() <= MAX_BACKUP_AGE_MS) return pass(detail);
  if (scheduler.off) return pass(`${detail}; scheduled backups are off (BACKUP_TIME=off)`);
  return fail(
    `${detail}, more than 26 hours`,
    `${command}; then see why the daily one did not run: ${scheduler.status}`,
  );
}

/** ✗ only when the latest verify failed: it found the snapshot differing, or could not restore it. */
export function verifyOutcome(entries: OperationEntry[], now: Date, command: string): CheckResult {
  const latest = latestOperation(entries, 'verify');
  if (!latest) return pass('no verify yet: the next scheduled backup runs one (then weekly)');
  if (latest.ok) {
    return pass(`snapshot ${snapshotOf(latest) ?? 'unknown'} restored as it was taken ${ago(latest, now)}`);
  }
  return fail(
    `the latest verify, ${ago(latest, now)}, failed: ${latest.detail}`,
    `${command}, then ${command.replace(' backup', ' backup --verify')}; if it differs again, check the repository: restic check (docs/backup.md)`,
  );
}
