import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateDkimKey } from '../../src/modules/domains/dkim.ts';
import { dkimTables, STALE_KEY_GRACE_MS, writeDkimTables } from '../../src/modules/mail/dkim/dkim-tables.ts';
import { uidOf } from '../support/daemons.ts';
import { DKIM_SYNC } from '../support/mail-servers.ts';

// deploy/atrium-dkim-sync, run as root as the operator's path unit or cron runs it: copies of
// Atrium's tables and keys owned by OpenDKIM's user, a reload only when something changed. That
// OpenDKIM accepts the copies (RequireSafeKeys on) is dkim.test.ts's.

const SECRET = 'test-secret-that-is-long-enough-0123456789';
// Not under /tmp, as for OpenDKIM (mail-servers.ts): the copies' modes are what is checked here.
const base = mkdtempSync('/run/atrium-dkim-sync-test-');
const source = mkdtempSync(path.join(tmpdir(), 'atrium-dkim-source-'));
const dest = path.join(base, 'opendkim');

const fakes: ChildProcess[] = [];

afterAll(() => {
  // Ends a stand-in a failing test never signalled.
  for (const child of fakes) if (child.exitCode === null && child.signalCode === null) child.kill();
  rmSync(base, { recursive: true, force: true });
  rmSync(source, { recursive: true, force: true });
});

const sync = (...args: string[]) => spawnSync(DKIM_SYNC, args, { encoding: 'utf8' });

/** A process standing in for OpenDKIM: SIGUSR1's default action ends it, so its exit shows the signal. */
function fakeOpendkim() {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  fakes.push(child);
  const pidFile = path.join(base, `opendkim-${child.pid}.pid`);
  writeFileSync(pidFile, `${child.pid}\n`);
  const exit = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_, signal) => resolve(signal)),
  );
  return { child, pidFile, exit };
}

describe('deploy/atrium-dkim-sync', () => {
  it('copies keys and tables owned by opendkim, 0700/0600, reloads once, then changes nothing', async () => {
    const key = await generateDkimKey(SECRET);
    const rows = ['atrium', 'atrium2'].map((selector) => ({
      name: `${selector}.example`,
      dkim_selector: selector,
      dkim_private_key_enc: key.privateKeyEnc,
    }));
    writeDkimTables(source, dkimTables(rows, SECRET, dest));
    const opendkim = fakeOpendkim();

    const first = sync('-p', opendkim.pidFile, source, dest);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout.split('\n')).toEqual([
      `created ${dest}`,
      `created ${dest}/keys`,
      `copied ${dest}/keys/atrium._domainkey.atrium.example.pem`,
      `copied ${dest}/keys/atrium2._domainkey.atrium2.example.pem`,
      `copied ${dest}/KeyTable`,
      `copied ${dest}/SigningTable`,
      `reloaded opendkim (pid ${opendkim.child.pid})`,
      '',
    ]);
    expect(await opendkim.exit).toBe('SIGUSR1');
    const { uid, gid } = uidOf('opendkim');
    for (const [file, mode] of [
      [dest, 0o700],
      [`${dest}/keys`, 0o700],
      [`${dest}/KeyTable`, 0o600],
      [`${dest}/keys/atrium._domainkey.atrium.example.pem`, 0o600],
    ] as const) {
      const stat = statSync(file);
      expect({ file, mode: stat.mode & 0o777, uid: stat.uid, gid: stat.gid }).toEqual({
        file,
        mode,
        uid,
        gid,
      });
    }
    expect(readFileSync(`${dest}/KeyTable`, 'utf8')).toBe(readFileSync(`${source}/KeyTable`, 'utf8'));
    expect(readFileSync(`${dest}/KeyTable`, 'utf8')).toContain(
      `${dest}/keys/atrium._domainkey.atrium.example.pem`,
    );

    // Identical copies: nothing printed, nothing signalled (the pid file names no process, so a
    // signal would have failed the run).
    writeFileSync(path.join(base, 'opendkim-gone.pid'), '999999999\n');
    const again = sync('-p', path.join(base, 'opendkim-gone.pid'), source, dest);
    expect([again.status, again.stdout, again.stderr]).toEqual([0, '', '']);
  });

  it('removes the copy of a key the source no longer has, and puts back a changed mode', async () => {
    // The source drops atrium.example's key once its grace has passed (dkim-tables.ts).
    const key = await generateDkimKey(SECRET);
    const row = {
      name: 'atrium2.example',
      dkim_selector: 'atrium2',
      dkim_private_key_enc: key.privateKeyEnc,
    };
    writeDkimTables(source, dkimTables([row], SECRET, dest), Date.now() + STALE_KEY_GRACE_MS + 1000);
    chmodSync(`${dest}/SigningTable`, 0o644);
    const opendkim = fakeOpendkim();
    const run = sync('-p', opendkim.pidFile, source, dest);
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n')).toEqual([
      `copied ${dest}/keys/atrium2._domainkey.atrium2.example.pem`,
      `copied ${dest}/KeyTable`,
      `copied ${dest}/SigningTable`,
      `removed ${dest}/keys/atrium._domainkey.atrium.example.pem`,
      `reloaded opendkim (pid ${opendkim.child.pid})`,
      '',
    ]);
    expect(await opendkim.exit).toBe('SIGUSR1');
    expect(existsSync(`${dest}/keys/atrium._domainkey.atrium.example.pem`)).toBe(false);
    expect(statSync(`${dest}/SigningTable`).mode & 0o777).toBe(0o600);
  });

  it('without a running OpenDKIM copies and says it will read them when it starts', () => {
    rmSync(dest, { recursive: true });
    const run = sync('-p', path.join(base, 'no-such.pid'), source, dest);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /opendkim is not running \(no .*no-such\.pid\): it reads the copies when it starts\n$/,
    );
  });

  it.each([
    [[source], /^atrium-dkim-sync: usage: atrium-dkim-sync \[-u USER\] \[-p PIDFILE\] SOURCE DEST\n$/],
    [[source, 'relative'], /^atrium-dkim-sync: DEST relative: expected an absolute path\n$/],
    [[source, source], /^atrium-dkim-sync: SOURCE and DEST are the same directory/],
    [[base, dest], /^atrium-dkim-sync: SOURCE .* has no KeyTable: is it MAIL_DKIM_DIR/],
    [
      ['-u', 'no-such-user', source, dest],
      /^atrium-dkim-sync: no user no-such-user \(OpenDKIM's UserID\)\n$/,
    ],
  ])('names what is wrong in one line: %o', (args, message) => {
    const run = sync(...args);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(message);
  });
});
