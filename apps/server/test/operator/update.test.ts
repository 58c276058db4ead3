import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseId } from '../../src/operator/install/release.ts';
import { freePort } from '../support/free-port.ts';
import { ensureServiceUsers } from './installed-host.ts';

/**
 * `npm run atrium -- update` as an operator runs it: install --root DIR (no mail) from this
 * repository, start Atrium through the init script install wrote, then update from copies of the
 * repository, each with a change, and check which release serves afterwards.
 */
const repo = path.resolve(import.meta.dirname, '../../../..');
const node = path.join(repo, 'node_modules', '.bin', 'node');

let root: string;
let port: number;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI of `checkout`, as `npm run atrium -- …` there runs it (cwd without a .env). */
function atrium(checkout: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(node, [path.join(checkout, 'apps/server/src/cli.ts'), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * A copy of this checkout with `change` made to it: the files git knows (tracked and untracked,
 * not ignored), the built console, and node_modules hard-linked as release.ts does.
 */
function copyCheckout(name: string, change: (dir: string) => void): string {
  const dir = path.join(root, 'checkouts', name);
  mkdirSync(dir, { recursive: true });
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
  }).stdout;
  const copy = spawnSync('sh', ['-c', 'tar -c --null -T - | tar -x -C "$0"', dir], {
    cwd: repo,
    input: files,
  });
  expect(copy.status).toBe(0);
  for (const [from, to] of [
    ['apps/console/dist', 'apps/console'],
    ['node_modules', '.'],
    ['apps/console/node_modules', 'apps/console'],
  ] as const) {
    const flag = from.endsWith('node_modules') ? '-al' : '-a';
    expect(spawnSync('cp', [flag, path.join(repo, from), path.join(dir, to)]).status).toBe(0);
  }
  change(dir);
  return dir;
}

const harmless = (dir: string) => appendFileSync(path.join(dir, 'README.md'), '\n<!-- update test -->\n');

function addMigration(dir: string, name: string, body: string): void {
  writeFileSync(path.join(dir, 'apps/server/src/db/migrations', `${name}.ts`), body);
}

const current = () => path.basename(readlinkSync(path.join(root, 'opt/atrium/current')));
const releases = () => readdirSync(path.join(root, 'opt/atrium/releases')).sort();
const servingPid = () => readFileSync(path.join(root, 'run/atrium/atrium.pid'), 'utf8').trim();
/** The release the running server started from (its working directory). */
const servingRelease = () => path.basename(readlinkSync(`/proc/${servingPid()}/cwd`));

async function readyStatus(): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/api/ready`)).status;
  } catch {
    return 0;
  }
}

async function waitUntilReady(): Promise<void> {
  for (let attempt = 0; attempt < 240 && (await readyStatus()) !== 200; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const initScript = (action: string) =>
  spawnSync(path.join(root, 'etc/init.d/atrium'), [action], { encoding: 'utf8' });

beforeAll(async () => {
  ensureServiceUsers();
  root = mkdtempSync('/var/lib/atrium-update-');
  chmodSync(root, 0o755);
  port = await freePort();
  const install = await atrium(repo, [
    'install',
    '--root',
    root,
    '--public-url',
    'https://atrium.test',
    '--no-mail',
    '--atrium-port',
    String(port),
  ]);
  expect(install.stderr).toBe('');
  expect(install.status).toBe(0);
  expect(initScript('start').status).toBe(0);
  await waitUntilReady();
  expect(await readyStatus()).toBe(200);
}, 240_000);

afterAll(() => {
  if (!root) return;
  initScript('stop');
  rmSync(root, { recursive: true, force: true });
});

describe('update', () => {
  const installed = () => releaseId(repo);
  let first: string;

  it('deploys a changed checkout as a new release that serves', async () => {
    const checkout = copyCheckout('harmless', harmless);
    first = releaseId(checkout);
    expect(first).not.toBe(installed());
    const dryRun = await atrium(checkout, ['update', '--root', root, '--dry-run']);
    expect(dryRun.status).toBe(0);
    expect(dryRun.stdout).toContain(`would deploy release ${first}`);
    expect(releases()).toEqual([installed()]);

    const run = await atrium(checkout, ['update', '--root', root]);

    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Release ${first} is serving`);
    expect(current()).toBe(first);
    expect(servingRelease()).toBe(first);
    expect(await readyStatus()).toBe(200);
  }, 240_000);

  it('goes back to the previous release when the new server cannot start, and says why', async () => {
    const checkout = copyCheckout('broken', (dir) => {
      harmless(dir);
      const main = path.join(dir, 'apps/server/src/main.ts');
      writeFileSync(
        main,
        readFileSync(main, 'utf8').replace(
          'async function main()',
          "throw new Error('this release cannot start (update test)');\n\nasync function main()",
        ),
      );
      // Additive: the previous release must start against the database after it.
      addMigration(
        dir,
        '2099_01_01_0000_update_probe',
        "import { sql, type Kysely } from 'kysely';\n\n" +
          'export async function up(db: Kysely<unknown>): Promise<void> {\n' +
          '  await sql`create table update_probe (id integer primary key)`.execute(db);\n}\n',
      );
    });
    const broken = releaseId(checkout);

    const run = await atrium(checkout, ['update', '--root', root]);

    expect(run.status).toBe(1);
    expect(run.stdout).toContain('migrations run: 2099_01_01_0000_update_probe');
    expect(run.stderr).toContain(`release ${broken} did not become ready`);
    expect(run.stderr).toContain('Error: this release cannot start (update test)');
    expect(run.stderr).toContain(`release ${first} is serving again`);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(current()).toBe(first);
    expect(servingRelease()).toBe(first);
    expect(await readyStatus()).toBe(200);
  }, 240_000);

  it('refuses a breaking migration before changing anything', async () => {
    const checkout = copyCheckout('breaking', (dir) => {
      harmless(dir);
      addMigration(
        dir,
        '2099_02_01_0000_breaking_probe',
        "import type { Kysely } from 'kysely';\n\n" +
          "export const breaking = 'drops a column older releases read';\n\n" +
          'export async function up(_db: Kysely<unknown>): Promise<void> {}\n',
      );
    });
    const before = { releases: releases(), pid: servingPid() };

    const run = await atrium(checkout, ['update', '--root', root]);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain('update refused: migration 2099_02_01_0000_breaking_probe');
    expect(run.stderr).toContain('--allow-breaking');
    expect(releases()).toEqual(before.releases);
    expect(current()).toBe(first);
    expect(servingPid()).toBe(before.pid);
    expect(await readyStatus()).toBe(200);
  }, 240_000);

  it('refuses a checkout older than the database, and the previous release serves on', async () => {
    // The installed release does not know the probe migration the broken release left behind.
    const run = await atrium(repo, ['update', '--root', root]);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`release ${installed()} does not know (2099_01_01_0000_update_probe)`);
    expect(run.stderr).toContain(`release ${first} is serving, as before`);
    expect(current()).toBe(first);
    expect(servingRelease()).toBe(first);
    expect(await readyStatus()).toBe(200);
  }, 240_000);

  it('--rollback goes back to the previous release over additive migrations', async () => {
    const run = await atrium(repo, ['update', '--root', root, '--rollback']);

    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(current()).toBe(installed());
    expect(servingRelease()).toBe(installed());
    expect(await readyStatus()).toBe(200);
  }, 240_000);
});
