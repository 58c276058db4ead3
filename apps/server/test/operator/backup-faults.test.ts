import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resticFor, type Restic } from '../../src/operator/backup/restic.ts';
import { checkStateFile } from '../../src/operator/backup/repository-check.ts';
import { checkParts } from '../../src/operator/backup/schedule.ts';
import { readOperations } from '../../src/operator/operations-log.ts';
import { readSettingsFile } from '../../src/operator/settings-file.ts';
import { freePort } from '../support/free-port.ts';
import { atriumCli, InstalledHost, ROOTS } from './installed-host.ts';

// A backup's faults on a host installed by `install --root` (its own embedded database, so this
// file runs once): damage under an older snapshot found by --verify and named; a backup killed
// with -9 while staging and while restic runs, after which the next one succeeds; a read-only,
// full, unreachable repository and a wrong password, each one line naming the cause.

const CLI = path.resolve(import.meta.dirname, '../../src/cli.ts');

let host: InstalledHost;
let settingsBefore: string;
/** Mount points of the tmpfs repositories, unmounted after (also when a test fails). */
const mounts: string[] = [];

const cli = (args: string[]) => atriumCli([...args, '--root', host.layout.root]);
const restic = (): Restic => resticFor(host.layout, readSettingsFile(host.layout.settingsFile)!);
const resticRun = (args: string[]) =>
  spawnSync('restic', args, { env: restic().env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

/** A mailbox of the mail store, Maildir as Dovecot keeps it. */
const mailbox = (user: string) => path.join(host.layout.mailRoot, 'org1', user, 'Maildir');

function addMessage(user: string, name: string, body: Buffer | string): string {
  const dir = mailbox(user);
  for (const sub of ['cur', 'new', 'tmp']) mkdirSync(path.join(dir, sub), { recursive: true });
  const file = path.join(dir, 'cur', name);
  writeFileSync(file, body);
  return file;
}

/** What a backup printed: its snapshot's short id. */
const snapshotOf = (output: string) => /Backup ([0-9a-f]{8}):/.exec(output)?.[1];

async function until(ready: () => boolean, what: () => string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms / 1000} s: ${what()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** `backup` in its own process group, as cron starts it: killed with -9, its restic goes too. */
function backupInBackground(): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [CLI, 'backup', '--root', host.layout.root], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return { child, output: () => output };
}

async function killGroup(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
}

/** Children of `pid` named `name`, from /proc. */
function childrenNamed(pid: number, name: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      if (ppid === pid && comm === name) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** A tmpfs of `size` for a repository (mount -t tmpfs -o size=…, as root). */
function tmpfs(size: string): string {
  const at = mkdtempSync(path.join(ROOTS, 'repository-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', at], {
    encoding: 'utf8',
  });
  if (mounted.status !== 0) throw new Error(`mount tmpfs: ${mounted.stderr}`);
  mounts.push(at);
  return at;
}

function unmount(at: string): void {
  spawnSync('umount', [at]);
  rmSync(at, { recursive: true, force: true });
  mounts.splice(mounts.indexOf(at), 1);
}

/** A failed run: exit 1 and exactly one line, on stderr, that matches `cause`. */
function expectOneLine(run: { status: number | null; stdout: string; stderr: string }, cause: RegExp) {
  expect(run.status, run.stdout + run.stderr).toBe(1);
  const lines = run.stderr.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(cause);
}

beforeAll(async () => {
  host = await InstalledHost.create();
  const installed = host.install();
  if (installed.status !== 0) throw new Error(`install failed:\n${installed.output}`);
  settingsBefore = readFileSync(host.layout.settingsFile, 'utf8');
  await host.startAtrium();
  addMessage('ada', '1700000000.M1P1.mail:2,S', 'Subject: hello\r\n\r\nfirst\r\n');
  // More than a 2 MiB disk takes (the full repository below).
  addMessage('bob', '1700000001.M1P1.mail:2,', randomBytes(4 * 1024 * 1024));
}, 120_000);

afterAll(async () => {
  for (const at of [...mounts]) unmount(at);
  await host?.close();
});

describe('backup faults', () => {
  it('a backup killed with -9 while staging leaves nothing that blocks the next one', async () => {
    // Dovecot (this process) holds bob's mailbox: the backup stages ada's, then waits for bob's.
    const held = path.join(mailbox('bob'), 'dovecot-uidlist.lock');
    writeFileSync(held, `${process.pid}:${hostname()}\n`);
    const run = backupInBackground();
    const stagedAda = path.join(host.layout.backupDir, 'staging/mail/org1/ada/Maildir/cur');
    await until(() => existsSync(stagedAda), run.output);
    await killGroup(run.child);
    rmSync(held);
    // What a backup killed while holding a mailbox's lock leaves: the lock, with its dead pid.
    const left = path.join(mailbox('ada'), 'dovecot-uidlist.lock');
    writeFileSync(left, `${run.child.pid}:${hostname()}\n`);
    expect(existsSync(path.join(host.layout.backupDir, 'backup.lock'))).toBe(true);

    const doctor = cli(['doctor']);
    expect(doctor.stdout).toMatch(
      new RegExp(
        `^✗ Backups: the latest backup, started .+ ago \\(pid ${run.child.pid}\\), was interrupted: killed, or the host stopped while it ran — fix: `,
        'm',
      ),
    );

    const next = cli(['backup']);
    expect(next.status, next.output).toBe(0);
    expect(snapshotOf(next.stdout)).toBeTruthy();
    expect(existsSync(left)).toBe(false);
    expect(existsSync(path.join(host.layout.backupDir, 'staging'))).toBe(false);
    expect(existsSync(path.join(host.layout.backupDir, 'backup.lock'))).toBe(false);
    const check = resticRun(['check']);
    expect(check.status, check.stderr).toBe(0);
  }, 120_000);

  it('a backup killed with -9 while restic runs leaves nothing that blocks the next one', async () => {
    const large = addMessage('ada', `${Date.now()}.M2P1.mail:2,`, randomBytes(64 * 1024 * 1024));
    const run = backupInBackground();
    // restic runs and holds its lock in the repository: it is reading the new message.
    const locks = path.join(restic().repository, 'locks');
    await until(
      () => childrenNamed(run.child.pid!, 'restic').length > 0 && readdirSync(locks).length > 0,
      run.output,
    );
    const restics = childrenNamed(run.child.pid!, 'restic');
    await killGroup(run.child);
    // SIGKILL reaches restic at once but its end (and the host reaping it) may come a moment after
    // its parent's: until then its lock names a live process, as restic unlock rightly keeps it.
    await until(() => restics.every((pid) => !existsSync(`/proc/${pid}`)), run.output);
    // restic's lock, which every later restic would stop at, and our own run lock stay behind.
    expect(readdirSync(locks)).not.toEqual([]);
    expect(existsSync(path.join(host.layout.backupDir, 'backup.lock'))).toBe(true);

    const next = cli(['backup']);
    expect(next.status, next.output).toBe(0);
    expect(readdirSync(locks)).toEqual([]);
    const check = resticRun(['check']);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toContain('no errors were found');
    // Later tests restore the latest snapshot: without this message it is small.
    rmSync(large);
  }, 120_000);

  it('--verify finds a damaged pack under an older snapshot and names the snapshot and its file', async () => {
    // Larger than restic's packs: some pack then holds this message's data alone.
    const only = addMessage('ada', `${Date.now()}.M3P1.mail:2,S`, randomBytes(24 * 1024 * 1024));
    const older = snapshotOf(cli(['backup']).stdout)!;
    rmSync(only);
    const latest = cli(['backup']);
    expect(latest.status, latest.output).toBe(0);
    const name = path.relative(host.layout.mailRoot, only);
    // A pack holding only the removed message, which only the older snapshot has.
    const packs = resticRun(['list', 'packs']).stdout.trim().split('\n');
    const damaged = packs.find((pack) => {
      const found = resticRun(['find', '--json', '--pack', pack]);
      const hits = JSON.parse(found.stdout || '[]') as { path: string }[];
      return hits.length > 0 && hits.every((h) => h.path.endsWith(name));
    })!;
    expect(damaged).toBeTruthy();
    const file = path.join(restic().repository, 'data', damaged.slice(0, 2), damaged);
    chmodSync(file, 0o600);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('damaged by the test'), 0, 19, 300 * 1024);
    closeSync(fd);
    // The rotation (repository-check.json) reads the damaged pack's part next: packs are divided
    // into the parts by their id's first byte.
    const parts = checkParts(readSettingsFile(host.layout.settingsFile)!);
    expect(parts).toBe(4);
    const part = (parseInt(damaged.slice(0, 2), 16) % parts) + 1;
    writeFileSync(
      checkStateFile(host.layout),
      JSON.stringify({ repository: restic().repository, next: part, parts }),
    );

    const verify = cli(['backup', '--verify']);
    expect(verify.status, verify.output).toBe(1);
    expect(verify.stdout).toContain(
      `✗ Backup repository ${restic().repository}: restic check (part ${part} of ${parts} of the data) found damage:`,
    );
    const lines = verify.stdout.split('\n').filter((l) => l.startsWith('  Snapshot '));
    expect(lines, verify.stdout).toEqual([
      expect.stringMatching(
        new RegExp(
          `^  Snapshot ${older} of \\S+Z: damaged pack ${damaged.slice(0, 8)} holds mail/${name.replaceAll('.', '\\.')}$`,
        ),
      ),
    ]);
    expect(readOperations(host.layout).at(-1)).toMatchObject({
      operation: 'verify',
      ok: false,
      detail: expect.stringContaining(`Backup repository damaged: Snapshot ${older} of `),
    });

    // A backup into it fails, in one line, and doctor shows why.
    expectOneLine(
      cli(['backup']),
      new RegExp(`^Backup repository .+: damaged — restic check found on \\S+: Snapshot ${older} `),
    );
    const doctor = cli(['doctor']);
    expect(doctor.stdout).toMatch(
      new RegExp(
        `^✗ Backup repository: .+ is damaged \\(restic check, .+\\): Snapshot ${older} .+ — fix: see "A damaged repository" in docs/backup.md`,
        'm',
      ),
    );

    // Mended as docs/backup.md says: the damaged snapshot forgotten and pruned, then a verify that
    // reads all the data passes, and backups go on.
    expect(resticRun(['forget', older]).status).toBe(0);
    const prune = resticRun(['prune']);
    expect(prune.status, prune.stderr).toBe(0);
    const again = cli(['backup', '--verify']);
    expect(again.status, again.output).toBe(0);
    expect(again.stdout).toContain('restic check passed (all the data read back)');
    expect(cli(['backup']).status).toBe(0);
  }, 180_000);

  it('a read-only, a full and an unreachable repository, and a wrong password: one line naming each', async () => {
    try {
      const full = tmpfs('2m');
      host.addSettings({ BACKUP_REPOSITORY: path.join(full, 'repository') });
      expectOneLine(
        cli(['backup']),
        /^Backup repository .+: disk full \(no space left on the device\) — free space there or move BACKUP_REPOSITORY/,
      );
      expect(readOperations(host.layout).at(-1)).toMatchObject({
        operation: 'backup',
        ok: false,
        detail: expect.stringContaining('disk full'),
      });

      // The same repository, made (restic init fits in 2 MiB), then mounted read-only.
      const readOnly = tmpfs('2m');
      host.addSettings({ BACKUP_REPOSITORY: path.join(readOnly, 'repository') });
      expect(resticRun(['init']).status).toBe(0);
      expect(spawnSync('mount', ['-o', 'remount,ro', readOnly]).status).toBe(0);
      expectOneLine(
        cli(['backup']),
        /^Backup repository .+: read-only file system — mount its disk read-write/,
      );

      host.addSettings({ BACKUP_REPOSITORY: `rest:http://127.0.0.1:${await freePort()}/atrium` });
      expectOneLine(
        cli(['backup']),
        /^Backup repository rest:.+: unreachable \(connection refused\) — check that its server answers/,
      );
    } finally {
      writeFileSync(host.layout.settingsFile, settingsBefore);
    }
    const wrong = path.join(host.layout.settingsDir, 'wrong-password');
    writeFileSync(wrong, 'not the password\n', { mode: 0o600 });
    host.addSettings({ BACKUP_PASSWORD_FILE: wrong });
    try {
      expectOneLine(
        cli(['backup']),
        new RegExp(`^Backup repository .+: wrong password — ${wrong} is not this repository's password`),
      );
    } finally {
      writeFileSync(host.layout.settingsFile, settingsBefore);
    }
  }, 120_000);
});
