import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../../db/connect.ts';
import { loadDump, parseDump } from '../../db/logical-dump.ts';
import { serviceCommand } from '../doctor/service-commands.ts';
import { hostLayout, SERVICE_USER } from '../host-layout.ts';
import { hostOwnership } from '../install/host-changes.ts';
import { OperatorProblem } from '../operator-problem.ts';
import { logOperation, type OperationResult } from '../operations-log.ts';
import { backupHost } from './backup-host.ts';
import { requireServerStopped } from './database-source.ts';
import { SNAPSHOT, type Manifest } from './manifest.ts';
import { requireRestic, resticFor, snapshots } from './restic.ts';
import { restoreSnapshot } from './verify.ts';

/**
 * `npm run atrium -- restore [--snapshot ID] [--force]`: a snapshot back onto a host installed
 * by the same release (install first, with the same options, and put the backup password in
 * BACKUP_PASSWORD_FILE): the database, the settings file with the secret, the DKIM keys and the
 * mail store with owners and modes. Atrium must be stopped (it holds the database); a deployment
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
        `the database, ${layout.settingsFile}, ${config.mail.dkimDir ?? layout.dkimDir} and ${layout.mailRoot}`;
      print(detail);
      return { ok: true, detail };
    }
    scratch = restoreSnapshot(host, restic, snapshot.id);
    const manifest = JSON.parse(readFileSync(path.join(scratch, SNAPSHOT.manifest), 'utf8')) as Manifest;
    const dump = parseDump(readFileSync(path.join(scratch, SNAPSHOT.database), 'utf8'));
    await requireSameMigrations(db, dump.tables.find((t) => t.name === 'kysely_migration')?.rows ?? []);
    await loadDump(db, dump);
    await db.destroy();
    if (!config.databaseUrl) giveToServiceUser(config.dataDir);
    databaseOpen = false;

    replaceFile(path.join(scratch, SNAPSHOT.settings), layout.settingsFile);
    const dkimDir = config.mail.dkimDir ?? layout.dkimDir;
    if (existsSync(path.join(scratch, SNAPSHOT.dkim)))
      replaceTree(path.join(scratch, SNAPSHOT.dkim), dkimDir);
    if (existsSync(path.join(scratch, SNAPSHOT.mail)))
      replaceTree(path.join(scratch, SNAPSHOT.mail), layout.mailRoot);

    const rowCount = Object.values(manifest.tables).reduce((sum, t) => sum + t.rows, 0);
    const messages = Object.values(manifest.mailboxes).reduce((sum, m) => sum + m.rows, 0);
    const detail =
      `Restored snapshot ${snapshot.shortId} of ${manifest.createdAt}: ${Object.keys(manifest.tables).length} tables ` +
      `(${rowCount} rows), ${Object.keys(manifest.mailboxes).length} mailboxes (${messages} messages), ` +
      `the settings file and DKIM keys`;
    print(`${detail} — start Atrium: ${serviceCommand(layout.root, 'atrium', 'start')}`);
    return { ok: true, detail };
  } finally {
    if (databaseOpen) {
      await db.destroy().catch(() => undefined);
      // Opening it as root (even to refuse) wrote files the server must be able to write.
      if (!config.databaseUrl) giveToServiceUser(config.dataDir);
    }
    if (scratch) rmSync(scratch, { recursive: true, force: true });
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

/** What root wrote while opening the embedded database belongs to the service user again. */
function giveToServiceUser(dir: string): void {
  const owners = hostOwnership(true);
  const uid = owners.uid(SERVICE_USER);
  const gid = owners.gid(SERVICE_USER);
  const walk = (at: string) => {
    chownSync(at, uid, gid);
    if (statSync(at).isDirectory()) for (const name of readdirSync(at)) walk(path.join(at, name));
  };
  walk(dir);
}

/** The file's content from the snapshot, with the installed file's owner and mode. */
function replaceFile(from: string, to: string): void {
  const before = statSync(to);
  copyFileSync(from, to);
  chownSync(to, before.uid, before.gid);
  chmodSync(to, before.mode & 0o7777);
}

/** `to` emptied and filled with `from`'s contents, owners and modes (restic restored them as root). */
function replaceTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(to)) rmSync(path.join(to, name), { recursive: true, force: true });
  const run = spawnSync('cp', ['-a', '--', `${from}/.`, to], { encoding: 'utf8' });
  if (run.status !== 0) throw new OperatorProblem(`Restore ${to}: ${run.stderr.trim()}`);
}
