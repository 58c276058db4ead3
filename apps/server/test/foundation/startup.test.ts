import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.ts';

const main = path.resolve(import.meta.dirname, '../../src/main.ts');
const cli = path.resolve(import.meta.dirname, '../../src/cli.ts');
const baseEnv = { PATH: process.env.PATH ?? '', ATRIUM_SECRET: 'x'.repeat(40), LOG_LEVEL: 'warn' };

function startFails(env: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-start-'));
  const r = spawnSync(process.execPath, [main], {
    env: { ...baseEnv, DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: r.status, stderr: r.stderr.trim() };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitForHealth(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
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

  it('serves, then shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-start-'));
    const child = spawn(process.execPath, [main], {
      env: { ...baseEnv, PORT: String(port), DATA_DIR: dataDir },
    });
    await waitForHealth(port);
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});

describe('one process per embedded database', () => {
  it('refuses the operator command while the server holds DATA_DIR, and runs once it has stopped', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-lock-'));
    const env = { ...baseEnv, PORT: String(port), DATA_DIR: dataDir };
    const server = spawn(process.execPath, [main], { env });
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
  });
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
  });
});
