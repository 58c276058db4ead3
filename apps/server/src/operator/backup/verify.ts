import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { connectDatabase } from '../../db/connect.ts';
import { databaseDigests, loadDump, parseDump } from '../../db/logical-dump.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { OperatorProblem } from '../operator-problem.ts';
import type { OperationResult } from '../operations-log.ts';
import type { BackupHost } from './backup-host.ts';
import { mailDigests } from './mail-store.ts';
import { differences, snapshotFileDigests, SNAPSHOT, type Manifest } from './manifest.ts';
import { checkRepository } from './repository-check.ts';
import { runOrFail, snapshots, type Restic } from './restic.ts';
import { checkParts } from './schedule.ts';

/**
 * `backup --verify`: the latest snapshot restored into scratch space — its files into a scratch
 * directory, its database dump loaded into a scratch embedded database migrated by this release
 * — and what came back compared with the snapshot's manifest, written when the snapshot was
 * taken from the live deployment: rows and checksum per table, messages and checksum per
 * mailbox, checksum per file. One line per difference, naming the table, mailbox or file; the
 * result, for the operator log, has them all on one. First, the repository's own check
 * (repository-check.ts): its structure, and the next part of its data read back, so that damage
 * under an older snapshot is found too; a damaged snapshot is named with what it holds.
 */
export async function verifyLatest(
  host: BackupHost,
  restic: Restic,
  print: (line: string) => void,
): Promise<OperationResult> {
  const latest = snapshots(restic).at(-1);
  if (!latest)
    throw new OperatorProblem(
      `Backup repository ${restic.repository}: no snapshot yet — npm run atrium -- backup`,
    );
  const checked = checkRepository(host.layout, restic, checkParts(host.settings));
  if (!checked.ok) {
    print(`✗ Backup repository ${restic.repository}: restic check (${checked.read}) found damage:`);
    for (const line of checked.damage) print(`  ${line}`);
    return { ok: false, detail: `Backup repository damaged: ${checked.damage.join('; ')}` };
  }
  // Printed after the snapshot's line, which stays the first: the verify's summary.
  const checkedLine = `✓ Backup repository ${restic.repository}: restic check passed (${checked.read} read back)`;
  const scratch = restoreSnapshot(host, restic, latest.id, 'verify-');
  try {
    const manifest = JSON.parse(readFileSync(path.join(scratch, SNAPSHOT.manifest), 'utf8')) as Manifest;
    const db = await connectDatabase({ pgliteDir: 'memory://' });
    let tables;
    try {
      await migrateToLatest(db);
      await loadDump(db, parseDump(readFileSync(path.join(scratch, SNAPSHOT.database), 'utf8')));
      tables = await databaseDigests(db);
    } finally {
      await db.destroy();
    }
    const found = differences(manifest, {
      tables,
      mailboxes: mailDigests(path.join(scratch, SNAPSHOT.mail)),
      files: snapshotFileDigests(scratch),
    });
    const rows = Object.values(tables).reduce((sum, t) => sum + t.rows, 0);
    const messages = Object.values(manifest.mailboxes).reduce((sum, m) => sum + m.rows, 0);
    if (found.length === 0) {
      const detail =
        `Snapshot ${latest.shortId} of ${manifest.createdAt} restores as it was taken: ` +
        `${Object.keys(tables).length} tables (${rows} rows), ${Object.keys(manifest.mailboxes).length} mailboxes ` +
        `(${messages} messages), ${Object.keys(manifest.files).length} files`;
      print(`✓ ${detail}`);
      print(checkedLine);
      return { ok: true, detail };
    }
    print(`✗ Snapshot ${latest.shortId} of ${manifest.createdAt} does not restore as it was taken:`);
    for (const line of found) print(`  ${line}`);
    print(checkedLine);
    // The operator log keeps one line: the differences after one another.
    return { ok: false, detail: `Snapshot ${latest.shortId}: ${found.join('; ')}` };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * A snapshot's files in a new scratch directory below the backup directory (root's, 0700); one
 * a killed run left is removed by the next backup or verify (backup-lock.ts).
 */
export function restoreSnapshot(host: BackupHost, restic: Restic, id: string, prefix = 'restore-'): string {
  const scratch = mkdtempSync(path.join(host.layout.backupDir, prefix));
  try {
    runOrFail(restic, ['restore', id, '--target', scratch], `Snapshot ${id}`);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  return scratch;
}
