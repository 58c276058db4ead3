import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { dumpDigests, parseDump } from '../../db/logical-dump.ts';
import { OperatorProblem } from '../operator-problem.ts';
import { hostLayout } from '../host-layout.ts';
import { logOperation, readOperations, type OperationResult } from '../operations-log.ts';
import { readSettingsFile } from '../settings-file.ts';
import { backupHost, formatBytes, keepOptions, type BackupHost } from './backup-host.ts';
import { removeLeftovers, takeRunLock } from './backup-lock.ts';
import { fetchDatabaseDump } from './database-source.ts';
import { mailboxes, stageMail, stageSieveScripts } from './mail-store.ts';
import { calendarCount, snapshotFileDigests, SNAPSHOT, type Manifest } from './manifest.ts';
import { radicaleStorage, stageCalendars } from './radicale-store.ts';
import { rspamdSettings } from '../doctor/rspamd-checks.ts';
import { stageRedis } from './redis-store.ts';
import {
  backupDirectory,
  ensurePassword,
  ensureRepository,
  repositorySize,
  requireRestic,
  resticFor,
  runOrFail,
  snapshots,
  unlockStale,
  type Restic,
} from './restic.ts';
import { knownDamage } from './repository-check.ts';
import { fileProblem } from './restic-errors.ts';
import { verifyDue } from './schedule.ts';
import { verifyLatest } from './verify.ts';

export const BACKUP_USAGE = `  npm run atrium -- backup [--root <dir>] [--verify] [--scheduled] [--dry-run]
  npm run atrium -- restore [--root <dir>] [--snapshot <id>] [--force] [--dry-run]`;

/**
 * `npm run atrium -- backup`: one restic snapshot of everything that rebuilds this deployment —
 * the database (dumped by the running server in one transaction), the settings file with the
 * secret, the DKIM keys, every mailbox (staged one at a time under Dovecot's lock) with the
 * users' Sieve scripts, Radicale's calendars and address books (under its lock), and rspamd's
 * learned data from Redis (redis-store.ts: a warning, not a failure, when Redis is down) — then
 * the retention policy, then one line: size added, repository size, duration. With --verify:
 * the latest snapshot restored into scratch space and compared with its manifest instead. With
 * --scheduled (the daily timer or cron line install writes): the backup, then a verify when the
 * last successful one is a week old (schedule.ts). Each backup and verify, by hand or scheduled,
 * adds its outcome to the operator log (operations-log.ts), which doctor reads.
 * Run as root: it reads the mail of every user and the settings file.
 */
export async function backupCommand(
  args: string[],
  print: (line: string) => void = console.log,
): Promise<boolean> {
  const { values } = parseArgs({
    args,
    options: {
      root: { type: 'string' },
      verify: { type: 'boolean' },
      scheduled: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
    },
    strict: true,
  });
  const layout = hostLayout(values.root ?? '/');
  const verify = () =>
    logOperation(layout, 'verify', async () => {
      const { host, restic } = backupTarget(values.root);
      if (!existsSync(restic.passwordFile)) {
        throw new OperatorProblem(
          `Backup password ${restic.passwordFile}: missing — nothing was backed up yet: npm run atrium -- backup`,
        );
      }
      return withRunLock(host, 'verify', () => {
        // As before a backup: a restic check killed with an earlier verify left a stale lock.
        unlockStale(restic);
        return verifyLatest(host, restic, print);
      });
    });
  if (values.verify) return verify();
  if (values['dry-run']) {
    const { host, restic } = backupTarget(values.root);
    printDryRun(host, restic, print);
    return true;
  }
  // Only `off` matters here: a time that is none is install's to refuse, not a reason to skip a night.
  if (values.scheduled && readSettingsFile(layout.settingsFile)?.BACKUP_TIME === 'off') {
    print(`Scheduled backups are off (BACKUP_TIME=off in ${layout.settingsFile}): nothing done.`);
    return true;
  }
  const backedUp = await logOperation(layout, 'backup', () => {
    const { host, restic } = backupTarget(values.root);
    return withRunLock(host, 'backup', () => takeBackup(host, restic, print));
  });
  if (!values.scheduled) return backedUp;
  const settings = readSettingsFile(layout.settingsFile) ?? {};
  if (!verifyDue(readOperations(layout), settings, new Date())) return backedUp;
  return (await verify()) && backedUp;
}

/**
 * One backup or verify at a time (backup-lock.ts). The lock holds its owner's pid, so one left by
 * a run that was killed (kill -9, the host stopped during the nightly backup) is taken over, and
 * what that run left is removed: its staging and scratch directories now, restic's stale locks
 * once the repository is open (takeBackup).
 */
async function withRunLock<T>(host: BackupHost, operation: string, run: () => Promise<T>): Promise<T> {
  const release = takeRunLock(host.layout, operation, () => removeLeftovers(host.layout));
  try {
    return await run();
  } catch (error) {
    throw fileProblem(error, host.layout.backupDir);
  } finally {
    release();
  }
}

/** The installed host and its restic repository; restic itself must be there. */
function backupTarget(root: string | undefined): { host: BackupHost; restic: Restic } {
  const host = backupHost(root, 'backup');
  requireRestic();
  return { host, restic: resticFor(host.layout, host.settings) };
}

function printDryRun(host: BackupHost, restic: Restic, print: (line: string) => void): void {
  const dkim = host.config.mail.dkimDir ?? host.layout.dkimDir;
  print(
    `Would back up to ${restic.repository}: the database (from the running server), ${host.layout.settingsFile}, ` +
      `${dkim}, the calendars and address books in ${radicaleStorage(host.layout)}, ` +
      (rspamdSettings(host.layout).redis ? "rspamd's learned data in Redis " : '') +
      `and ${mailboxes(host.layout.mailRoot).length} mailboxes below ${host.layout.mailRoot}; ` +
      `then keep ${keepOptions(host.settings).join(' ')}` +
      (existsSync(restic.passwordFile)
        ? ''
        : ` (a first backup makes the password file ${restic.passwordFile})`),
  );
}

async function takeBackup(
  host: BackupHost,
  restic: Restic,
  print: (line: string) => void,
): Promise<OperationResult> {
  const started = Date.now();
  const newPassword = ensurePassword(restic);
  ensureRepository(restic);
  const damage = knownDamage(host.layout, restic.repository);
  if (damage) {
    throw new OperatorProblem(
      `Backup repository ${restic.repository}: damaged — restic check found on ${damage.at.slice(0, 10)}: ${damage.lines[0]}` +
        `${damage.lines.length > 1 ? ` (and ${damage.lines.length - 1} more)` : ''}; nothing is backed up into it until it is mended: see "A damaged repository" in docs/backup.md`,
    );
  }
  // No other backup runs (the run lock): a restic lock left by a killed one is stale.
  unlockStale(restic);
  const staging = path.join(host.layout.backupDir, 'staging');
  // A staging directory left by an interrupted run holds links, not data: start again.
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  chmodSync(staging, 0o700);
  try {
    // The database first: the mail staged after it is at least as new (a message the database
    // knows of is in the mailbox; Maildir names no database rows).
    const dump = await fetchDatabaseDump(host.layout, host.config);
    writeFileSync(path.join(staging, SNAPSHOT.database), dump, { mode: 0o600 });
    mkdirSync(path.join(staging, 'settings'), { mode: 0o700 });
    copyFileSync(host.layout.settingsFile, path.join(staging, SNAPSHOT.settings));
    const dkimDir = host.config.mail.dkimDir ?? host.layout.dkimDir;
    if (existsSync(dkimDir)) {
      copyTree(dkimDir, path.join(staging, SNAPSHOT.dkim));
    }
    const staged = await stageMail(host.layout.mailRoot, path.join(staging, SNAPSHOT.mail));
    stageSieveScripts(host.layout.mailRoot, path.join(staging, SNAPSHOT.mail));
    stageCalendars(radicaleStorage(host.layout), path.join(staging, SNAPSHOT.calendars));
    const redis = rspamdSettings(host.layout).redis;
    const redisWarning = redis ? stageRedis(redis, path.join(staging, SNAPSHOT.redis)) : undefined;
    if (redisWarning) print(redisWarning);
    const manifest: Manifest = {
      version: 1,
      createdAt: new Date().toISOString(),
      tables: dumpDigests(parseDump(dump)),
      mailboxes: staged,
      files: snapshotFileDigests(staging),
    };
    writeFileSync(path.join(staging, SNAPSHOT.manifest), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o600,
    });

    const summary = await backupDirectory(restic, staging, ['atrium']);
    runOrFail(restic, ['forget', '--prune', '--tag', 'atrium', ...keepOptions(host.settings)], 'Retention');
    const total = repositorySize(restic);
    const count = snapshots(restic).length;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const line =
      `Backup ${summary.snapshotId.slice(0, 8)}: ${formatBytes(summary.dataAdded)} added ` +
      `(${Object.keys(manifest.tables).length} tables, ${Object.keys(staged).length} mailboxes, ` +
      `${calendarCount(manifest)} calendars and address books, ` +
      `${formatBytes(summary.totalBytesProcessed)} read), ${formatBytes(total)} in ${restic.repository} ` +
      `(${count} snapshot${count === 1 ? '' : 's'}), ${seconds} s`;
    print(line);
    if (newPassword) {
      print(
        `New backup password in ${restic.passwordFile}: keep a copy away from this host — without it no snapshot can be read.`,
      );
    }
    return { ok: true, detail: redisWarning ? `${line}; ${redisWarning}` : line };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** A directory with owners and modes (cp -a), as restic then stores them. */
export function copyTree(from: string, to: string): void {
  const run = spawnSync('cp', ['-a', '--', from, to], { encoding: 'utf8' });
  if (run.status !== 0) throw new OperatorProblem(`Copy ${from}: ${run.stderr.trim()}`);
}
