import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { TableDigest } from '../../db/logical-dump.ts';
import { sieveFiles } from './mail-store.ts';

/**
 * What a snapshot held when it was taken, stored inside it (manifest.json): each table's rows and
 * checksum as the server dumped them, each mailbox's messages and checksum as staged under its
 * lock, and each file's checksum. `backup --verify` compares a restored snapshot with it.
 */
export interface Manifest {
  version: 1;
  createdAt: string;
  tables: Record<string, TableDigest>;
  mailboxes: Record<string, TableDigest>;
  files: Record<string, string>;
}

/** The layout of a snapshot (and of a restored one): paths relative to its top. */
export const SNAPSHOT = {
  manifest: 'manifest.json',
  database: 'database.ndjson',
  settings: 'settings/atrium.env',
  dkim: 'dkim',
  mail: 'mail',
  /** Radicale's storage: `calendars/collection-root/<user>/<collection>/…` (radicale-store.ts). */
  calendars: 'calendars',
  /** Redis's data as one RDB file: rspamd's learned data (redis-store.ts). */
  redis: 'redis/dump.rdb',
} as const;

/**
 * Every file the manifest names by checksum: the settings, the DKIM keys, the calendars and
 * address books, Redis's dump, and users' Sieve scripts (mailboxes have digests of their own).
 */
export function snapshotFileDigests(top: string): Record<string, string> {
  const sieve: Record<string, string> = {};
  for (const script of sieveFiles(path.join(top, SNAPSHOT.mail))) {
    Object.assign(sieve, fileDigests(top, path.join(SNAPSHOT.mail, script)));
  }
  return {
    ...fileDigests(top, 'settings'),
    ...fileDigests(top, SNAPSHOT.dkim),
    ...fileDigests(top, SNAPSHOT.calendars),
    ...fileDigests(top, path.dirname(SNAPSHOT.redis)),
    ...sieve,
  };
}

/** Calendars and address books in a manifest: the collections' property files it names. */
export function calendarCount(manifest: Pick<Manifest, 'files'>): number {
  const top = `${SNAPSHOT.calendars}/collection-root/`;
  return Object.keys(manifest.files).filter(
    (name) =>
      name.startsWith(top) &&
      name.endsWith('/.Radicale.props') &&
      name.slice(top.length).split('/').length === 3,
  ).length;
}

/** sha256 of every file below `dir`, by path relative to `top`. */
export function fileDigests(top: string, dir: string): Record<string, string> {
  const digests: Record<string, string> = {};
  const walk = (at: string) => {
    let stat;
    try {
      stat = lstatSync(at);
    } catch {
      return;
    }
    if (stat.isSymbolicLink()) {
      // The active Sieve script is a link (~/.dovecot.sieve → sieve/x.sieve): its target names it.
      digests[path.relative(top, at)] = `-> ${readlinkSync(at)}`;
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(at).sort()) walk(path.join(at, name));
      return;
    }
    digests[path.relative(top, at)] = createHash('sha256').update(readFileSync(at)).digest('hex');
  };
  walk(path.join(top, dir));
  return digests;
}

/** One line per difference, naming the table, mailbox or file; none when they agree. */
export function differences(expected: Manifest, actual: Omit<Manifest, 'version' | 'createdAt'>): string[] {
  const lines: string[] = [];
  const compare = (
    kind: string,
    want: Record<string, TableDigest>,
    got: Record<string, TableDigest>,
    unit: string,
  ) => {
    for (const name of new Set([...Object.keys(want), ...Object.keys(got)])) {
      const w = want[name];
      const g = got[name];
      if (!g) lines.push(`${kind} ${name}: missing from the restored snapshot`);
      else if (!w) lines.push(`${kind} ${name}: in the restored snapshot but not in its manifest`);
      else if (w.rows !== g.rows)
        lines.push(`${kind} ${name}: ${g.rows} ${unit} restored, ${w.rows} backed up`);
      else if (w.sha256 !== g.sha256)
        lines.push(`${kind} ${name}: ${unit} differ (checksum) though their count agrees`);
    }
  };
  compare('Table', expected.tables, actual.tables, 'rows');
  compare('Mailbox', expected.mailboxes, actual.mailboxes, 'messages');
  for (const name of new Set([...Object.keys(expected.files), ...Object.keys(actual.files)])) {
    if (expected.files[name] !== actual.files[name])
      lines.push(`File ${name}: differs from what was backed up`);
  }
  return lines;
}
