import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDkimKey } from '../../src/modules/domains/dkim.ts';
import { dkimTables, STALE_KEY_GRACE_MS, writeDkimTables } from '../../src/modules/mail/dkim/dkim-tables.ts';

// What Atrium writes into MAIL_DKIM_DIR for OpenDKIM, which reads atrium-dkim-sync's copies in
// MAIL_DKIM_OPENDKIM_DIR (dkim-sync.test.ts; the signing itself is tested in dkim.test.ts).

const SECRET = 'test-secret-that-is-long-enough-0123456789';

describe('OpenDKIM tables written by Atrium', () => {
  it('names each verified domain’s key file where OpenDKIM reads it, 0600, and leaves out a key it cannot open', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-dkim-'));
    const key = await generateDkimKey(SECRET);
    const tables = dkimTables(
      [
        { name: 'a.example', dkim_selector: 'atrium2', dkim_private_key_enc: key.privateKeyEnc },
        { name: 'b.example', dkim_selector: 'atrium', dkim_private_key_enc: 'not sealed by this secret' },
      ],
      SECRET,
      '/etc/opendkim/atrium',
    );
    expect(tables.skipped).toEqual(['b.example']);
    expect(writeDkimTables(dir, tables)).toBe(true);
    const keyFile = path.join(dir, 'keys', 'atrium2._domainkey.a.example.pem');
    // The KeyTable names the copy OpenDKIM reads, not the file Atrium writes.
    expect(readFileSync(path.join(dir, 'KeyTable'), 'utf8')).toContain(
      'atrium2._domainkey.a.example a.example:atrium2:/etc/opendkim/atrium/keys/atrium2._domainkey.a.example.pem\n',
    );
    expect(readFileSync(path.join(dir, 'SigningTable'), 'utf8')).toContain(
      'a.example atrium2._domainkey.a.example\n',
    );
    expect(readFileSync(path.join(dir, 'SigningTable'), 'utf8')).not.toContain('b.example');
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    for (const file of ['KeyTable', 'SigningTable', 'keys/atrium2._domainkey.a.example.pem']) {
      expect(statSync(path.join(dir, file)).mode & 0o777, file).toBe(0o600);
    }
    // Nobody but Atrium reads them now (the sync runs as root).
    expect(statSync(path.join(dir, 'keys')).mode & 0o777).toBe(0o700);
    // Nothing changed: nothing rewritten, nothing to reload.
    expect(writeDkimTables(dir, tables)).toBe(false);
  });

  it('keeps a key file no table names for a grace period, then deletes it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'atrium-dkim-'));
    const key = await generateDkimKey(SECRET);
    const row = { name: 'a.example', dkim_selector: 'atrium', dkim_private_key_enc: key.privateKeyEnc };
    writeDkimTables(dir, dkimTables([row], SECRET, dir));
    const oldKey = path.join(dir, 'keys', 'atrium._domainkey.a.example.pem');
    const switched = dkimTables([{ ...row, dkim_selector: 'atrium2' }], SECRET, dir);
    expect(writeDkimTables(dir, switched)).toBe(true);
    // An OpenDKIM not reloaded yet still signs with the old key.
    expect(existsSync(oldKey)).toBe(true);
    expect(writeDkimTables(dir, switched, Date.now() + STALE_KEY_GRACE_MS + 1000)).toBe(false);
    expect(existsSync(oldKey)).toBe(false);
    expect(existsSync(path.join(dir, 'keys', 'atrium2._domainkey.a.example.pem'))).toBe(true);
  });
});
