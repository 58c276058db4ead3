import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { writeFileIfChanged } from '../../../lib/file-if-changed.ts';
import { openDkimPrivateKey } from '../../domains/dkim.ts';
import type { SigningKeyRow } from './dkim-tables.repository.ts';

export const KEY_TABLE = 'KeyTable';
export const SIGNING_TABLE = 'SigningTable';
export const KEYS_DIR = 'keys';

/**
 * A key file no table names any more is deleted once the tables naming it have been replaced
 * for this long: an OpenDKIM not yet reloaded still signs with it meanwhile.
 */
export const STALE_KEY_GRACE_MS = 10 * 60_000;

const HEADER = '# Written by Atrium from its database (docs/mail.md); changes here are overwritten.\n';

export interface DkimTables {
  /** Table name → contents. */
  tables: Record<string, string>;
  /** Key file name (in keys/) → PKCS#8 PEM. */
  keys: Record<string, string>;
  /** Domains left out because their key could not be opened (a changed ATRIUM_SECRET, say). */
  skipped: string[];
}

/**
 * OpenDKIM's KeyTable and SigningTable for every verified domain, and one key file per domain.
 * (OpenDKIM also takes a key inline in the KeyTable, but reads table lines into a buffer too
 * short for an RSA-2048 key.) The SigningTable is keyed by domain: OpenDKIM looks up the sender's
 * whole address, then its domain (SenderMacro makes that the envelope sender, which Postfix has
 * checked belongs to the signed-in user).
 * `opendkimDir` is where OpenDKIM reads the files (MAIL_DKIM_OPENDKIM_DIR): the KeyTable names the
 * key files there, in the copies deploy/atrium-dkim-sync makes, not where Atrium writes them.
 */
export function dkimTables(rows: SigningKeyRow[], secret: string, opendkimDir: string): DkimTables {
  const keyLines: string[] = [];
  const signing: string[] = [];
  const keys: Record<string, string> = {};
  const skipped: string[] = [];
  for (const row of rows) {
    let pem: string;
    try {
      pem = openDkimPrivateKey(secret, row.dkim_private_key_enc);
    } catch {
      skipped.push(row.name);
      continue;
    }
    const keyName = `${row.dkim_selector}._domainkey.${row.name}`;
    const file = `${keyName}.pem`;
    keys[file] = pem;
    keyLines.push(`${keyName} ${row.name}:${row.dkim_selector}:${path.join(opendkimDir, KEYS_DIR, file)}`);
    signing.push(`${row.name} ${keyName}`);
  }
  const lines = (list: string[]) => HEADER + list.map((line) => `${line}\n`).join('');
  return { tables: { [KEY_TABLE]: lines(keyLines), [SIGNING_TABLE]: lines(signing) }, keys, skipped };
}

/**
 * Writes the key files, then the tables, each atomically (a temporary file renamed over the old
 * one), so no reader ever sees half a file nor a table naming a key not written yet. Only Atrium
 * reads them (directories 0700, files 0600): OpenDKIM's RequireSafeKeys refuses keys in a
 * directory another user (Atrium) may write, so deploy/atrium-dkim-sync, run as root, copies them
 * to a directory OpenDKIM owns (docs/mail.md, "DKIM signing").
 * Returns whether a table changed: unchanged tables are left alone and need no reload.
 */
export function writeDkimTables(dir: string, written: DkimTables, now = Date.now()): boolean {
  const keysDir = path.join(dir, KEYS_DIR);
  mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  for (const [name, pem] of Object.entries(written.keys)) writeFileIfChanged(keysDir, name, pem, 0o600);
  let changed = false;
  for (const [name, text] of Object.entries(written.tables)) {
    if (writeFileIfChanged(dir, name, text, 0o600)) changed = true;
  }
  const tablesAge = now - statSync(path.join(dir, KEY_TABLE)).mtimeMs;
  if (tablesAge > STALE_KEY_GRACE_MS) {
    for (const name of readdirSync(keysDir)) {
      if (!(name in written.keys)) unlinkSync(path.join(keysDir, name));
    }
  }
  return changed;
}
