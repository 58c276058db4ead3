import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readlinkSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseId } from '../../src/operator/install/release.ts';
import { freePort } from '../support/free-port.ts';
import { ensureServiceUsers } from './installed-host.ts';
import { addMigration, atrium, copyCheckout, failsAfterMigrating, harmless } from './release-checkouts.ts';

/**
 * `npm run atrium -- update` as an operator runs it: install --root DIR (no mail) from this
 * repository, start Atrium through the init script install wrote, then update from copies of the
 * repository, each with a change, and check which release serves afterwards.
 */
const repo = path.resolve(import.meta.dirname, '../../../..');

let root: string;
let port: number;

const current = () => path.basename(readlinkSync(path.join(root, 'opt/atrium/current')));
const releases = () => readdirSync(path.join(root, 'opt/atrium/releases')).sort();
/** The service's process: the supervisor, which keeps its pid while servers come and go. */
const servingPid = () => readFileSync(path.join(root, 'run/atrium/atrium.pid'), 'utf8').trim();
/** The release the running server was started from, as the supervisor reports it. */
const servingRelease = () => {
  const status = JSON.parse(readFileSync(path.join(root, 'run/atrium/supervisor.json'), 'utf8')) as {
    serving: string;
  };
  expect(readlinkSync(`/proc/${childOf(servingPid())}/cwd`)).toBe(status.serving);
  return path.basename(status.serving);
};
/** The supervisor's one child: the server. */
const childOf = (pid: string) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];

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
  const install = await atrium(root, repo, [
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
    const checkout = copyCheckout(root, 'harmless', harmless);
    first = releaseId(checkout);
    expect(first).not.toBe(installed());
    const dryRun = await atrium(root, checkout, ['update', '--root', root, '--dry-run']);
    expect(dryRun.status).toBe(0);
    expect(dryRun.stdout).toContain(`would deploy release ${first}`);
    expect(releases()).toEqual([installed()]);

    const run = await atrium(root, checkout, ['update', '--root', root]);

    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Release ${first} is serving`);
    expect(current()).toBe(first);
    expect(servingRelease()).toBe(first);
    expect(await readyStatus()).toBe(200);
  }, 240_000);

  it('goes back to the previous release when the new server cannot start, and says why', async () => {
    const checkout = copyCheckout(root, 'broken', (dir) => {
      harmless(dir);
      failsAfterMigrating(dir);
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

    const run = await atrium(root, checkout, ['update', '--root', root]);

    expect(run.status).toBe(1);
    // Under the supervisor the new server migrates the embedded database as it opens it.
    expect(run.stdout).toContain('the new server runs them as it opens the embedded database');
    expect(run.stderr).toContain(`release ${broken} did not become ready`);
    expect(run.stderr).toContain('Error: this release cannot start (update test)');
    expect(run.stderr).toContain(`release ${first} is serving again`);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(current()).toBe(first);
    expect(servingRelease()).toBe(first);
    expect(await readyStatus()).toBe(200);
  }, 240_000);

  it('refuses a breaking migration before changing anything', async () => {
    const checkout = copyCheckout(root, 'breaking', (dir) => {
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

    const run = await atrium(root, checkout, ['update', '--root', root]);

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
    const run = await atrium(root, repo, ['update', '--root', root]);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`release ${installed()} does not know (2099_01_01_0000_update_probe)`);
    expect(run.stderr).toContain(`release ${first} is serving, as before`);
    expect(current()).toBe(first);
    expect(servingRelease()).toBe(first);
    expect(await readyStatus()).toBe(200);
  }, 240_000);

  it('--rollback goes back to the previous release over additive migrations', async () => {
    const run = await atrium(root, repo, ['update', '--root', root, '--rollback']);

    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(current()).toBe(installed());
    expect(servingRelease()).toBe(installed());
    expect(await readyStatus()).toBe(200);
  }, 240_000);
});
