import path from 'node:path';
import { MANAGESIEVE_PORT } from '../../modules/mail/config/dovecot-config.ts';
import type { HostLayout } from '../host-layout.ts';

// The files `install` writes so that one Debian Roundcube, behind Caddy at /webmail on every
// organisation's site host, reads the per-host files Atrium writes (modules/webmail; docs/mail.md,
// "Roundcube: the Mail app"). Pure: install decides where they go and whether they changed.

/** Debian's web root for Roundcube (roundcube-core). */
export const ROUNDCUBE_WEB_ROOT = '/var/lib/roundcube/public_html';
export const WEBMAIL_PATH = '/webmail';
export const WEBMAIL_POOL = 'atrium-webmail';
/** The value of defaults.inc.php, which Roundcube refuses to encrypt with in earnest. */
const DEFAULT_DES_KEY = 'rcmail-!24ByteDESkey*Str';
const BEGIN = '// BEGIN Atrium webmail (written by `atrium install`; changes inside are overwritten)';
const END = '// END Atrium webmail';

export interface WebmailPaths {
  /** Where Atrium writes `<host>.inc.php` (layout.webmailConfigDir). */
  webmailConfigDir: string;
  /** Roundcube's own configuration directory (layout.roundcubeDir). */
  roundcubeDir: string;
  /** PHP-FPM's pool directory (layout.phpFpmPoolDir). */
  phpFpmPoolDir: string;
  /** The pool's socket, which Caddy's php_fastcgi connects to. */
  socket: string;
  /** Roundcube's SQLite database, when Debian's dbconfig set none up. */
  database: string;
}

export function webmailPaths(layout: HostLayout): WebmailPaths {
  return {
    webmailConfigDir: layout.webmailConfigDir,
    roundcubeDir: layout.roundcubeDir,
    phpFpmPoolDir: layout.phpFpmPoolDir,
    socket: path.join(layout.root, '/run/php/atrium-webmail.sock'),
    database: path.join(layout.root, '/var/lib/roundcube/db/roundcube.db'),
  };
}

const php = (value: string) => `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;

/** `$config['des_key'] = '…';` as a file sets it (the last one wins), or undefined. */
function desKeyIn(text: string): string | undefined {
  const all = [...text.matchAll(/\$config\['des_key'\]\s*=\s*'((?:[^'\\]|\\.)*)'\s*;/g)];
  return all.at(-1)?.[1]?.replace(/\\(.)/g, '$1');
}

/** Whether Debian's dbconfig chose a database (debian-db.php's `$dbtype` not empty). */
export function debianDatabaseConfigured(debianDbPhp: string): boolean {
  return /\$dbtype\s*=\s*'[^']+'/.test(debianDbPhp);
}

/**
 * /etc/roundcube/config.inc.php with Atrium's block at its end, replacing an earlier one, so a
 * second run writes the same text. Debian's own lines stay: the block only adds
 * - `include_host_config`: Roundcube then reads `<Host>.inc.php` from every RCUBE_CONFIG_PATH
 *   directory, the pool's environment adding WEBMAIL_CONFIG_DIR to /etc/roundcube;
 * - the database, only when Debian's dbconfig set none up (`--no-install-recommends` and
 *   dbconfig-install false leave `$dbtype` empty): SQLite under /var/lib/roundcube;
 * - `des_key` only when Debian's is missing or the default: Roundcube encrypts the session's
 *   password (here, the access token) with it, so it must not change between runs; the one
 *   this block holds is read back and kept, `newKey` is called only the first time.
 * - smtp_user/smtp_pass `%u`/`%p`, which Debian's file sets and submission's XOAUTH2 needs;
 * - the managesieve plugin (Settings → Filters), reaching Dovecot's ManageSieve on loopback
 *   (`managesieve`, default 127.0.0.1:4190). Roundcube's OAuth signs in there with the user's access
 *   token (XOAUTH2, rcmail_oauth's managesieve_connect hook), as it does at IMAP. Its vacation
 *   screen stays off: Atrium's profile has the out-of-office reply, and two would answer twice.
 */
export function roundcubeMainConfig(
  existing: string,
  options: { database: string; debianDatabase: boolean; newKey: () => string; managesieve?: string },
): string {
  const start = existing.indexOf(BEGIN);
  const end = existing.indexOf(END);
  const block = start >= 0 && end > start ? existing.slice(start, end + END.length) : '';
  const outside = block ? existing.replace(block, '') : existing;
  const debianKey = desKeyIn(outside);
  const lines = [
    BEGIN,
    "$config['include_host_config'] = true;",
    "$config['smtp_user'] = '%u';",
    "$config['smtp_pass'] = '%p';",
    "$config['plugins'] = array_values(array_unique(array_merge((array) ($config['plugins'] ?? []), ['managesieve'])));",
    `$config['managesieve_host'] = ${php(options.managesieve ?? `127.0.0.1:${MANAGESIEVE_PORT}`)};`,
    "$config['managesieve_vacation'] = 0;",
  ];
  if (!options.debianDatabase) {
    lines.push(`$config['db_dsnw'] = ${php(`sqlite:///${options.database}?mode=0640`)};`);
  }
  if (!debianKey || debianKey === DEFAULT_DES_KEY) {
    lines.push(`$config['des_key'] = ${php(desKeyIn(block) ?? options.newKey())};`);
  }
  lines.push(END);
  const body = outside.replace(/\s*\?>\s*$/, '').replace(/\n*$/, '\n');
  return `${body}\n${lines.join('\n')}\n`;
}

/** A des_key as Roundcube wants it: 24 characters. */
export function newDesKey(random: (bytes: number) => Buffer): string {
  return random(18).toString('base64').slice(0, 24);
}

/**
 * PHP-FPM's pool for Roundcube: its own socket (Debian's `www` pool stays as it is), run as
 * www-data like Debian's Roundcube expects (it owns /var/lib/roundcube/temp), and the
 * configuration path that adds Atrium's directory. `listenGroup`: Caddy's user's group, the only
 * one that may connect.
 */
export function webmailPhpFpmPool(
  paths: Pick<WebmailPaths, 'socket' | 'roundcubeDir' | 'webmailConfigDir'>,
  options: { user?: string; listenGroup?: string } = {},
): string {
  const user = options.user ?? 'www-data';
  return [
    '; Written by `atrium install` (docs/mail.md, "Roundcube: the Mail app").',
    `[${WEBMAIL_POOL}]`,
    `user = ${user}`,
    `group = ${user}`,
    `listen = ${paths.socket}`,
    `listen.owner = ${user}`,
    `listen.group = ${options.listenGroup ?? 'caddy'}`,
    'listen.mode = 0660',
    'pm = ondemand',
    'pm.max_children = 10',
    'pm.process_idle_timeout = 60s',
    // Roundcube reads its configuration from each directory in turn; Atrium's per-host files
    // are the second. (Not in php.ini: only this pool is Roundcube.)
    `env[RCUBE_CONFIG_PATH] = ${paths.roundcubeDir}:${paths.webmailConfigDir}`,
    // Debian's Roundcube looks for its own directory here too (program/include/iniset.php).
    `env[ROUNDCUBE_CONFIG_DIR] = ${paths.roundcubeDir}`,
    'php_admin_value[upload_max_filesize] = 25M',
    'php_admin_value[post_max_size] = 30M',
    '',
  ].join('\n');
}

/**
 * The Caddy (2.6) routes for Roundcube, to go inside every site block that serves organisations'
 * hosts. `handle_path` strips /webmail, so `root` is Roundcube's web root as Debian ships it;
 * Roundcube learns the prefix from `request_path` in each host's file (REQUEST_URI would do too,
 * Caddy passing the original one, but the file says it outright). `/webmail` alone redirects,
 * as Roundcube's relative links need the slash.
 */
export function webmailCaddyRoutes(
  paths: Pick<WebmailPaths, 'socket'>,
  options: { webRoot?: string } = {},
): string {
  return [
    `redir ${WEBMAIL_PATH} ${WEBMAIL_PATH}/ 308`,
    `handle_path ${WEBMAIL_PATH}/* {`,
    `\troot * ${options.webRoot ?? ROUNDCUBE_WEB_ROOT}`,
    `\tphp_fastcgi unix/${paths.socket}`,
    '\tfile_server',
    '}',
    '',
  ].join('\n');
}
