import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../../db/connect.ts';
import { loadDump, parseDump } from '../../db/logical-dump.ts';
import { serviceCommand } from '../doctor/service-commands.ts';
import { hostLayout, MAIL_USER, SERVICE_USER, type HostLayout } from '../host-layout.ts';
import { hostOwnership } from '../install/host-changes.ts';
import { OperatorProblem } from '../operator-problem.ts';
import { logOperation, type OperationResult } from '../operations-log.ts';
import { parseSettings } from '../settings-file.ts';
import { backupHost } from './backup-host.ts';
import { requireServerStopped } from './database-source.ts';
import { calendarCount, SNAPSHOT, type Manifest } from './manifest.ts';
import { radicaleStorage, restoreCalendars } from './radicale-store.ts';
import { rspamdSettings } from '../doctor/rspamd-checks.ts';
import { restoreRedis } from './redis-store.ts';
import { giveTo, reloadDaemons, restoredSettings, rewriteInstallFiles } from './restore-host.ts';
import { requireRestic, resticFor, snapshots } from './restic.ts';
import { restoreSnapshot } from './verify.ts';

/**
 * `npm run atrium -- restore [--snapshot ID] [--force]`: a snapshot back onto a host installed
 * by the same release (install first, and put the backup password in BACKUP_PASSWORD_FILE): the
 * database, the secrets (this host's own DATABASE_URL and paths kept, restore-host.ts), the DKIM
 * keys, the mail store and Radicale's calendars with owners and modes; install's files that
 * derive from the secret are written again and their daemons reloaded, so nothing is left to do
 * but start Atrium. Atrium must be stopped (it holds the database); a deployment
 * that already has organisations or mail is only overwritten with --force. A restore, or the
 * problem that stopped it, is a line of the operator log (a dry run is not).
 */
export async function restoreCommand(
  args: string[],
  print: (line: string) => void = console.log,
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      root: { type: 'string' },
      snapshot: { type: 'string' },
      force: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
    },
    strict: true,
  });
  if (values['dry-run']) {
    await restore(values, print);
    return;
  }
  await logOperation(hostLayout(values.root ?? '/'), 'restore', () => restore(values, print));
}

async function restore(
  values: { root?: string; snapshot?: string; force?: boolean; 'dry-run'?: boolean },
  print: (line: string) => void,
): Promise<OperationResult> {
  const host = backupHost(values.root, 'restore');
  const { layout, config } = host;
  requireRestic();
  const restic = resticFor(layout, host.settings);
  if (!existsSync(restic.passwordFile)) {
    throw new OperatorProblem(
      `Backup password ${restic.passwordFile}: missing — put the repository's password there (one line, root 0600) or name its file in BACKUP_PASSWORD_FILE`,
    );
  }
  const all = snapshots(restic);
  const snapshot = values.snapshot ? all.find((s) => s.id.startsWith(values.snapshot!)) : all.at(-1);
  if (!snapshot) {
    throw new OperatorProblem(
      values.snapshot
        ? `Snapshot ${values.snapshot}: not in ${restic.repository} (restic snapshots lists them)`
        : `Backup repository ${restic.repository}: no snapshot to restore`,
    );
  }

  await requireServerStopped(layout, config);
  // Opening the embedded database fails while another process holds it, in one line naming DATA_DIR.
  const { db } = await openDatabase(config).catch((error: unknown) => {
    throw new OperatorProblem(
      `${(error as Error).message} — stop Atrium before restoring: ${serviceCommand(layout.root, 'atrium', 'stop')}`,
    );
  });
  let scratch: string | undefined;
  let databaseOpen = true;
  try {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from organizations`.execute(db);
    const mail = existsSync(layout.mailRoot) ? readdirSync(layout.mailRoot).length : 0;
    if ((rows[0]!.n > 0 || mail > 0) && !values.force) {
      throw new OperatorProblem(
        `Deployment ${layout.root}: not empty (${rows[0]!.n} organisations, ${mail} entries in ${layout.mailRoot}) — restore replaces all of it only with --force`,
      );
    }
    if (values['dry-run']) {
      const detail =
        `Would restore snapshot ${snapshot.shortId} of ${snapshot.time.toISOString()} onto ${layout.root}: ` +
        `the database, the secrets into ${layout.settingsFile} (this host's places kept), ` +
        `${config.mail.dkimDir ?? layout.dkimDir}, ${layout.mailRoot} and ${radicaleStorage(layout)}`;
      print(detail);
      return { ok: true, detail };
    }
    scratch = restoreSnapshot(host, restic, snapshot.id);
    const manifest = JSON.parse(readFileSync(path.join(scratch, SNAPSHOT.manifest), 'utf8')) as Manifest;
    const dump = parseDump(readFileSync(path.join(scratch, SNAPSHOT.database), 'utf8'));
    await requireSameMigrations(db, dump.tables.find((t) => t.name === 'kysely_migration')?.rows ?? []);
    await loadDump(db, dump);
    await db.destroy();
    if (!config.databaseUrl) giveTo(config.dataDir, SERVICE_USER);
    databaseOpen = false;

    // This host's places and the snapshot's secrets; then install's files that derive from them.
    const settings = restoredSettings(
      host.settings,
      parseSettings(readFileSync(path.join(scratch, SNAPSHOT.settings), 'utf8')),
    );
    const { changed, affected } = rewriteInstallFiles(layout, settings);
    const dkimDir = config.mail.dkimDir ?? layout.dkimDir;
    if (existsSync(path.join(scratch, SNAPSHOT.dkim))) {
      replaceTree(path.join(scratch, SNAPSHOT.dkim), dkimDir);
      giveTo(dkimDir, SERVICE_USER);
    }
    if (existsSync(path.join(scratch, SNAPSHOT.mail))) {
      replaceTree(path.join(scratch, SNAPSHOT.mail), layout.mailRoot);
      giveTo(layout.mailRoot, MAIL_USER);
    }
    const calendars = calendarCount(manifest);
    if (existsSync(path.join(scratch, SNAPSHOT.calendars))) {
      const storage = radicaleStorage(layout);
      const radicale = hostOwnership(true);
      restoreCalendars(path.join(scratch, SNAPSHOT.calendars), storage, {
        uid: radicale.uid('radicale'),
        gid: radicale.gid('radicale'),
      });
    }
    const reloaded = reloadDaemons(layout, affected);
    const learned = await restoreLearned(layout, path.join(scratch, SNAPSHOT.redis));

    const rowCount = Object.values(manifest.tables).reduce((sum, t) => sum + t.rows, 0);
    const messages = Object.values(manifest.mailboxes).reduce((sum, m) => sum + m.rows, 0);
    const detail =
      `Restored snapshot ${snapshot.shortId} of ${manifest.createdAt}: ${Object.keys(manifest.tables).length} tables ` +
      `(${rowCount} rows), ${Object.keys(manifest.mailboxes).length} mailboxes (${messages} messages), ` +
      `${calendars} calendars and address books, the secrets and DKIM keys; ` +
      `${changed.length} of install's files written again from the restored secret`;
    for (const line of [...reloaded, ...learned]) print(line);
    print(`${detail} — start Atrium: ${serviceCommand(layout.root, 'atrium', 'start')}`);
    return { ok: true, detail };
  } finally {
    if (databaseOpen) {
      await db.destroy().catch(() => undefined);
      // Opening it as root (even to refuse) wrote files the server must be able to write.
      if (!config.databaseUrl) giveTo(config.dataDir, SERVICE_USER);
    }
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * rspamd's learned data into this host's Redis (the one its rspamd names). A Redis that does not
 * answer leaves it out with a line saying so rather than failing a restore whose database, mail
 * and calendars are already back: rspamd then learns again from what users mark.
 */
async function restoreLearned(layout: HostLayout, dump: string): Promise<string[]> {
  if (!existsSync(dump)) return [];
  const redis = rspamdSettings(layout).redis;
  if (!redis) return ["rspamd's learned data: not restored — this host has no rspamd (install without mail)"];
  try {
    return [await restoreRedis(redis, dump)];
  } catch (error) {
    if (error instanceof OperatorProblem) return [error.message];
    throw error;
  }
}

/** The schema is this release's migrations: a snapshot of another release is refused, naming it. */
async function requireSameMigrations(db: Parameters<typeof loadDump>[0], dumped: string[]): Promise<void> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const here = new Set(rows.map((r) => r.name));
  const there = new Set(dumped.map((r) => (JSON.parse(r) as { name: string }).name));
  const newer = [...there].filter((n) => !here.has(n));
  const older = [...here].filter((n) => !there.has(n));
  if (newer.length > 0 || older.length > 0) {
    throw new OperatorProblem(
      `Snapshot: taken by ${newer.length > 0 ? `a newer release (migration ${newer[0]})` : `an older release (without migration ${older[0]})`} — ` +
        'restore onto a host installed from the release that took it, then update',
    );
  }
}

/** `to` emptied and filled with `from`'s contents, owners and modes (restic restored them as root). */
function replaceTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(to)) rmSync(path.join(to, name), { recursive: true, force: true });
  const run = spawnSync('cp', ['-a', '--', `${from}/.`, to], { encoding: 'utf8' });
  if (run.status !== 0) throw new OperatorProblem(`Restore ${to}: ${run.stderr.trim()}`);
}
