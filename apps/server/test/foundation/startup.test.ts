import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { sql } from 'kysely';
import { connectDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { freePort } from '../support/free-port.ts';
import { startServerProcess } from '../support/server-process.ts';

const main = path.resolve(import.meta.dirname, '../../src/main.ts');
const cli = path.resolve(import.meta.dirname, '../../src/cli.ts');
const baseEnv = { PATH: process.env.PATH ?? '', ATRIUM_SECRET: 'x'.repeat(40), LOG_LEVEL: 'warn' };

function startFails(env: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-start-'));
  const r = spawnSync(process.execPath, [main], {
    env: { ...baseEnv, DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
    // A first start makes the embedded database: slow on a loaded machine, and a kill would look like silence.
    timeout: 90_000,
  });
  return { status: r.status, stderr: r.stderr.trim() };
}

async function waitForHealth(port: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/ready`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become ready');
}

describe('start-up', () => {
  it('stops with one line naming a bad setting', () => {
    const r = startFails({ PORT: 'abc' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('Invalid setting PORT: expected a port number');
  });

  it('stops with one line when DATABASE_URL cannot be reached', () => {
    const r = startFails({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^Invalid setting DATABASE_URL: cannot connect to 127\.0\.0\.1:1\/nowhere/);
  });

  it('stops with one line naming the setting when its port is in use', async () => {
    const taken = await freePort();
    const holder = createServer().listen(taken, '127.0.0.1');
    await once(holder, 'listening');
    onTestFinished(() => void holder.close());
    const web = startFails({ PORT: String(taken), HOST: '127.0.0.1' });
    expect(web.status).toBe(1);
    expect(web.stderr).toBe(
      `PORT 127.0.0.1:${taken}: address already in use (EADDRINUSE) — another process listens there: stop it, or choose another port`,
    );
    const socketmap = startFails({
      PORT: '0',
      MAIL_SOCKETMAP_ADDRESS: `127.0.0.1:${taken}`,
      MAIL_DICT_SOCKET: path.join(mkdtempSync(path.join(tmpdir(), 'atrium-dict-')), 'dict.sock'),
    });
    expect(socketmap.stderr).toMatch(
      new RegExp(`^MAIL_SOCKETMAP_ADDRESS 127\\.0\\.0\\.1:${taken}: address already in use`),
    );
    expect(socketmap.stderr.split('\n')).toHaveLength(1);
  }, 200_000);

  it('stops with one line when the dict socket’s directory is missing, no stack trace', () => {
    const r = startFails({
      PORT: '0',
      MAIL_SOCKETMAP_ADDRESS: '127.0.0.1:1',
      MAIL_DICT_SOCKET: '/nonexistent-atrium-run/dict.sock',
    });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^MAIL_DICT_SOCKET \/nonexistent-atrium-run\/dict\.sock: .* — its directory \/nonexistent-atrium-run must exist and be writable by /,
    );
  }, 200_000);

  it('serves, then shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-start-'));
    const child = spawn(process.execPath, [main], {
      env: { ...baseEnv, PORT: String(port), DATA_DIR: dataDir },
    });
    onTestFinished(() => void child.kill('SIGKILL')); // a failed test leaves no server behind
    await waitForHealth(port);
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 90_000);
});

describe('one process per embedded database', () => {
  it('refuses the operator command while the server holds DATA_DIR, and runs once it has stopped', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-lock-'));
    const env = { ...baseEnv, PORT: String(port), DATA_DIR: dataDir };
    const server = spawn(process.execPath, [main], { env });
    onTestFinished(() => void server.kill('SIGKILL'));
    await waitForHealth(port);
    const command = [
      'create-organization',
      '--name',
      'Acme Ltd',
      '--site',
      'acme',
      '--email',
      'ada@acme.test',
    ];
    const run = () =>
      spawnSync(process.execPath, [cli, ...command, '--password', 'a long passphrase here'], {
        env,
        encoding: 'utf8',
        timeout: 30_000,
      });

    const refused = run();
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')[0]).toMatch(
      new RegExp(
        `^Invalid setting DATA_DIR: the embedded database in .* is in use by process ${server.pid} `,
      ),
    );

    const exit = new Promise<number | null>((resolve) => server.on('exit', resolve));
    server.kill('SIGTERM');
    expect(await exit).toBe(0);
    const created = run();
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(/^Created organisation "Acme Ltd"/);
  }, 90_000);
});

describe('embedded database durability', () => {
  it('keeps committed writes across kill -9 and a restart', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-durable-')), 'pgdata');
    // A separate process writes and commits, then is killed without any chance to flush.
    const writer = `
      import { connectDatabase } from ${JSON.stringify(path.resolve(import.meta.dirname, '../../src/db/connect.ts'))};
      import { migrateToLatest } from ${JSON.stringify(path.resolve(import.meta.dirname, '../../src/db/migrate.ts'))};
      const db = await connectDatabase({ pgliteDir: ${JSON.stringify(dir)} });
      await migrateToLatest(db);
      await db.insertInto('organizations').values({ name: 'Durable Ltd', site_name: 'durable' }).execute();
      console.log('committed');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', writer], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onTestFinished(() => void child.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('committed') && resolve());
      child.on('exit', (code) => reject(new Error(`writer exited with ${code}`)));
    });
    const killed = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await killed;

    const db = await connectDatabase({ pgliteDir: dir });
    const rows = await db.selectFrom('organizations').select(['name', 'site_name']).execute();
    await db.destroy();
    expect(rows).toEqual([{ name: 'Durable Ltd', site_name: 'durable' }]);
  }, 90_000);
});

/** A stopped DATA_DIR holding one organisation, made once; each test damages its own copy. */
let template: { dataDir: string; tableFile: string } | undefined;

async function dataDirWithOneOrganization(): Promise<{ dataDir: string; tableFile: string }> {
  if (!template) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-damaged-'));
    const db = await connectDatabase({ pgliteDir: path.join(dataDir, 'pgdata') });
    await migrateToLatest(db);
    await db.insertInto('organizations').values({ name: 'Kept Ltd', site_name: 'kept' }).execute();
    const { rows } = await sql<{ file: string }>`
      select pg_relation_filepath('organizations') as file
    `.execute(db);
    await closeHere(db, dataDir);
    template = { dataDir, tableFile: rows[0]!.file };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-damaged-'));
  cpSync(template.dataDir, dataDir, { recursive: true });
  return { dataDir, tableFile: path.join(dataDir, 'pgdata', template.tableFile) };
}

/** Closes a database this test process opened and lets the server have it (the lock is per process). */
async function closeHere(db: { destroy(): Promise<void> }, dataDir: string): Promise<void> {
  await db.destroy();
  rmSync(path.join(dataDir, 'pgdata.lock'), { force: true });
}

function startIn(dataDir: string) {
  const r = spawnSync(process.execPath, [main], {
    env: { ...baseEnv, DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stderr: r.stderr.trim() };
}

describe('a damaged data directory', () => {
  it('is never initialised afresh: without PG_VERSION start-up stops with one line, data intact', async () => {
    const { dataDir, tableFile } = await dataDirWithOneOrganization();
    const versionFile = path.join(dataDir, 'pgdata', 'PG_VERSION');
    const version = readFileSync(versionFile);
    rmSync(versionFile);

    const r = startIn(dataDir);
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^Invalid setting DATA_DIR: \S+\/pgdata has files but no PG_VERSION, so it holds no usable database .*restore DATA_DIR from a backup/,
    );
    // Nothing was written over it: put the one file back and every organisation is there.
    expect(existsSync(versionFile)).toBe(false);
    expect(existsSync(tableFile)).toBe(true);
    writeFileSync(versionFile, version);
    const db = await connectDatabase({ pgliteDir: path.join(dataDir, 'pgdata') });
    const names = await db.selectFrom('organizations').select('name').execute();
    await closeHere(db, dataDir);
    expect(names).toEqual([{ name: 'Kept Ltd' }]);
  }, 90_000);

  it('stops with one line when a table cannot be read', async () => {
    const { dataDir, tableFile } = await dataDirWithOneOrganization();
    rmSync(tableFile);
    const r = startIn(dataDir);
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^Invalid setting DATA_DIR: the embedded database in \S+\/pgdata cannot be read \(could not open file "base\/\d+\/\d+": No such file or directory\)/,
    );
  }, 90_000);

  it('stops with one line when the database cannot be opened', async () => {
    const { dataDir } = await dataDirWithOneOrganization();
    rmSync(path.join(dataDir, 'pgdata', 'global', 'pg_control'));
    const r = startIn(dataDir);
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^Invalid setting DATA_DIR: the embedded database in \S+\/pgdata cannot be opened \(.+\); if it is damaged, restore DATA_DIR from a backup$/,
    );
  }, 90_000);
});

/** Every entry under `root` (itself included) whose mode lets group or others in. */
function looseEntries(root: string): string[] {
  const loose: string[] = [];
  const visit = (entry: string) => {
    const stat = lstatSync(entry);
    if (stat.isSymbolicLink()) return;
    const expected = stat.isDirectory() ? 0o700 : 0o600;
    if ((stat.mode & 0o777) !== expected) loose.push(`${(stat.mode & 0o777).toString(8)} ${entry}`);
    if (stat.isDirectory()) for (const name of readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(root);
  return loose;
}

/** Opens up every entry under `root` as a umask of 000 would have left it; returns how many. */
function loosen(root: string): number {
  let count = 0;
  const visit = (entry: string) => {
    const stat = lstatSync(entry);
    chmodSync(entry, stat.isDirectory() ? 0o777 : 0o666);
    count++;
    if (stat.isDirectory()) for (const name of readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(root);
  return count;
}

describe('data directory permissions', () => {
  // No ATRIUM_SECRET: the server generates one and keeps it in DATA_DIR.
  const env = (dataDir: string) => ({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });

  it('creates DATA_DIR 0700 with files 0600 under umask 022, and tightens a loose one at start', async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-modes-')), 'data');

    const fresh = await startServerProcess(env(dataDir), { umask: '022' });
    onTestFinished(() => void fresh.child.kill('SIGKILL'));
    expect(lstatSync(path.join(dataDir, 'secret')).mode & 0o777).toBe(0o600);
    expect(lstatSync(path.join(dataDir, 'pgdata', 'PG_VERSION')).mode & 0o777).toBe(0o600);
    expect(looseEntries(dataDir)).toEqual([]);
    expect(await fresh.stop()).toBe(0);
    expect(looseEntries(dataDir)).toEqual([]);
    expect(fresh.output()).not.toContain('tightened');

    // A directory left readable by everyone (an older version, a copy, a restore).
    const opened = loosen(dataDir);
    expect(opened).toBeGreaterThan(100);
    const existing = await startServerProcess(env(dataDir), { umask: '022' });
    onTestFinished(() => void existing.child.kill('SIGKILL'));
    expect(looseEntries(dataDir)).toEqual([]);
    expect(await existing.stop()).toBe(0);
    expect(looseEntries(dataDir)).toEqual([]);
    const logLines = existing
      .output()
      .split('\n')
      .filter((l) => l.includes('tightened'));
    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toContain(
      `DATA_DIR ${dataDir}: tightened permissions on ${opened} entries that other users could read`,
    );
  }, 120_000);
});
