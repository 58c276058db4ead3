import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostLayout } from '../../src/operator/host-layout.ts';
import {
  releaseMigrations,
  rollbackRefusal,
  updateRefusal,
} from '../../src/operator/update/migration-rules.ts';
import { previousLink, pruneReleases } from '../../src/operator/update/release-links.ts';

/** The rules update decides by, without a server: migrations and which releases are kept. */
const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-update-rules-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const additive = (name: string) => ({ name });
const breaking = (name: string) => ({ name, breaking: 'drops a column' });

describe('update refusal', () => {
  it('lets additive migrations through', () => {
    expect(
      updateRefusal(['a'], { id: 'new', migrations: [additive('a'), additive('b')] }, 'old', false),
    ).toBe(undefined);
  });

  it('refuses a release that lacks a migration the database holds', () => {
    expect(updateRefusal(['a', 'b'], { id: 'new', migrations: [additive('a')] }, 'old', false)).toContain(
      'release new does not know (b)',
    );
  });

  it('refuses a pending breaking migration unless allowed; one already run is no reason', () => {
    const target = { id: 'new', migrations: [additive('a'), breaking('b')] };
    expect(updateRefusal(['a'], target, 'old', false)).toContain('migration b of release new is breaking');
    expect(updateRefusal(['a'], target, 'old', true)).toBe(undefined);
    expect(updateRefusal(['a', 'b'], target, 'old', false)).toBe(undefined);
  });
});

describe('rollback refusal', () => {
  it('goes back over additive migrations, not over a breaking one', () => {
    const target = { id: 'old', migrations: [additive('a')] };
    expect(rollbackRefusal(['a', 'b'], target, [additive('b')])).toBe(undefined);
    expect(rollbackRefusal(['a', 'b'], target, [breaking('b')])).toContain('migration b is breaking');
  });
});

describe('releaseMigrations', () => {
  it("reads a release's migration names and breaking declarations from its files", () => {
    const release = scratch();
    const dir = path.join(release, 'apps/server/src/db/migrations');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, '2099_01_01_0000_b.ts'), "export const breaking = 'renames users.name';\n");
    writeFileSync(path.join(dir, '2099_01_01_0000_a.ts'), 'export async function up() {}\n');
    expect(releaseMigrations(release)).toEqual([
      { name: '2099_01_01_0000_a' },
      { name: '2099_01_01_0000_b', breaking: 'renames users.name' },
    ]);
  });
});

describe('pruneReleases', () => {
  it('keeps the three newest releases and never the current or previous one', () => {
    const layout = hostLayout(scratch());
    const ids = ['r1', 'r2', 'r3', 'r4', 'r5'];
    ids.forEach((id, i) => {
      const dir = path.join(layout.releases, id);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, '.atrium-release'), `${id}\n`);
      utimesSync(dir, 1_000 + i, 1_000 + i);
    });
    symlinkSync(path.join(layout.releases, 'r5'), layout.current);
    symlinkSync(path.join(layout.releases, 'r1'), previousLink(layout));

    expect(pruneReleases(layout)).toEqual(['r2']);
  });
});
