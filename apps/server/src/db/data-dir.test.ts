import { chmodSync, lstatSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { secureDataDirectory } from './data-dir.ts';

const mode = (p: string) => lstatSync(p).mode & 0o777;

describe('secureDataDirectory', () => {
  it('creates DATA_DIR 0700 even under umask 000', () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-dd-')), 'data');
    const previous = process.umask(0);
    try {
      expect(secureDataDirectory(dataDir, { create: true })).toBe(0);
    } finally {
      process.umask(previous);
    }
    expect(mode(dataDir)).toBe(0o700);
  });

  it("tightens DATA_DIR and Atrium's entries in it, recursively, and counts them", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-dd-'));
    const outside = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-dd-out-')), 'elsewhere');
    writeFileSync(outside, 'x', { mode: 0o644 });
    chmodSync(outside, 0o644);
    mkdirSync(path.join(dataDir, 'pgdata', 'base', '5'), { recursive: true });
    writeFileSync(path.join(dataDir, 'pgdata', 'base', '5', '1259'), 'x');
    writeFileSync(path.join(dataDir, 'pgdata', 'PG_VERSION'), '17\n');
    writeFileSync(path.join(dataDir, 'secret'), 'x');
    writeFileSync(path.join(dataDir, 'operator-notes.txt'), 'x');
    symlinkSync(outside, path.join(dataDir, 'pgdata', 'link'));
    for (const p of ['', 'pgdata', 'pgdata/base', 'pgdata/base/5']) chmodSync(path.join(dataDir, p), 0o777);
    for (const p of ['pgdata/base/5/1259', 'pgdata/PG_VERSION', 'secret', 'operator-notes.txt']) {
      chmodSync(path.join(dataDir, p), 0o666);
    }

    // DATA_DIR, pgdata, base, 5, 1259, PG_VERSION and secret.
    expect(secureDataDirectory(dataDir, { create: false })).toBe(7);
    for (const p of ['', 'pgdata', 'pgdata/base', 'pgdata/base/5'])
      expect(mode(path.join(dataDir, p))).toBe(0o700);
    for (const p of ['pgdata/base/5/1259', 'pgdata/PG_VERSION', 'secret']) {
      expect(mode(path.join(dataDir, p))).toBe(0o600);
    }
    // Not Atrium's: left as the operator made it (DATA_DIR 0700 already keeps others out).
    expect(mode(path.join(dataDir, 'operator-notes.txt'))).toBe(0o666);
    // A symbolic link is not followed.
    expect(mode(outside)).toBe(0o644);

    expect(secureDataDirectory(dataDir, { create: false })).toBe(0);
  });

  it('is nothing to do when DATA_DIR does not exist and need not be created', () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'atrium-dd-')), 'absent');
    expect(secureDataDirectory(dataDir, { create: false })).toBe(0);
  });
});
