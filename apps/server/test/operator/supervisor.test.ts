import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readStatus } from '../../src/supervisor/supervisor-status.ts';
import { freePort } from '../support/free-port.ts';

/**
 * The supervisor on the embedded database, as install's restart uses it (a reload): the one server
 * stops, the new one starts with the settings file as it is now, and the status file says so.
 */
const repo = path.resolve(import.meta.dirname, '../../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'atrium-supervisor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen within 60 s`);
}

describe('the supervisor (embedded database)', () => {
  it('replaces its server on SIGHUP with the settings as they are now, and stops it on SIGTERM', async () => {
    const port = await freePort();
    const link = path.join(dir, 'current');
    symlinkSync(repo, link);
    const settings = path.join(dir, 'atrium.env');
    const status = path.join(dir, 'supervisor.json');
    const write = (level: string) =>
      writeFileSync(
        settings,
        `PUBLIC_URL=http://127.0.0.1:${port}\nHOST=127.0.0.1\nPORT=${port}\nDATA_DIR=${path.join(dir, 'data')}\n` +
          `ATRIUM_SECRET=${secret}\nLOG_LEVEL=${level}\n`,
      );
    const secret = randomBytes(32).toString('base64url');
    write('warn');
    const supervisor = spawn(
      process.execPath,
      [
        'apps/server/src/supervisor/supervisor.ts',
        '--link',
        link,
        '--settings',
        settings,
        '--status',
        status,
      ],
      { cwd: repo, env: { PATH: process.env.PATH ?? '' }, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => supervisor.once('exit', resolve));
    const ready = async () =>
      (await fetch(`http://127.0.0.1:${port}/api/ready`).catch(() => undefined))?.status === 200;
    try {
      await until(() => readStatus(status)?.serving === repo && ready(), 'the first start');
      const first = readStatus(status)!;
      expect(first.lastReload).toBeNull();

      write('info');
      supervisor.kill('SIGHUP');
      await until(() => readStatus(status)?.lastReload !== null, 'the replacement');
      expect(readStatus(status)!.lastReload).toMatchObject({ release: repo, ok: true });
      expect(await ready()).toBe(true);
    } finally {
      supervisor.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(await ready()).toBe(false);
  }, 120_000);
});
