import { mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { writeFileIfChanged } from '../../lib/file-if-changed.ts';
import type { Config } from '../../config.ts';
import { providerEndpoints } from '../apps/app-views.ts';
import { fillPlaceholders, type CatalogTemplate } from '../apps/catalog.ts';
import { WEBMAIL_PATH } from './webmail-url.ts';
import type { WebmailAppRow } from './webmail-hosts.repository.ts';

/** Roundcube's per-host files end so; any other file in the directory is not Atrium's. */
export const HOST_FILE_SUFFIX = '.inc.php';

const HEADER = [
  '<?php',
  '// Written by Atrium from its database (docs/mail.md, "Roundcube: the Mail app");',
  '// changes here are overwritten.',
];

/**
 * A PHP single-quoted string: inside one only `\` and `'` mean anything, so escaping those two
 * keeps any value (a secret, a URL with a quote) a string, whatever it holds.
 */
export function phpString(value: string): string {
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/**
 * The name Roundcube looks for with `include_host_config`: HTTP_HOST with every character but
 * [a-z0-9.-_] removed (rcube_config::load_host_config), so `a.example:8443` is `a.example8443`.
 * URL.host is what a browser sends as Host: lowercase, punycode, no default port.
 */
export function hostFileName(launchUrl: URL): string {
  return `${launchUrl.host.replace(/[^a-z0-9.\-_]/gi, '')}${HOST_FILE_SUFFIX}`;
}

/**
 * A host's file: a name with a dot before `.inc.php`. Roundcube also reads config.inc.php and
 * defaults.inc.php from every directory of RCUBE_CONFIG_PATH; no host file is ever named so.
 */
function isHostFileName(name: string): boolean {
  return name.endsWith(HOST_FILE_SUFFIX) && name.slice(0, -HOST_FILE_SUFFIX.length).includes('.');
}

export interface WebmailHostFiles {
  /** File name → contents. */
  files: Record<string, string>;
  /** Mail apps that get no file, and why (logged; the admin's page still has the snippet). */
  skipped: { appId: string; reason: string }[];
}

export interface WebmailContext {
  config: Pick<Config, 'publicUrl' | 'mailHost' | 'siteBaseDomain'> & {
    webmail: { imapHost: string; smtpHost: string; providerUrl?: string };
  };
  /** The Mail template the snippet comes from (the catalog's, so an operator's change applies). */
  template: CatalogTemplate;
  /** The client secret in clear; throws for one ATRIUM_SECRET cannot open. */
  openSecret: (sealed: string) => string;
  /** Verified domains by organisation. */
  verifiedDomains: Map<string, string[]>;
}

/**
 * The hosts Caddy serves for an organisation, the same as `/api/proxy-hosts/check` answers for
 * it: its site host, its verified domains and `apps.<verified domain>`. A launch URL on any
 * other host is not this Roundcube, and an organisation never gets a file for another's host.
 */
function hostsOf(row: WebmailAppRow, context: WebmailContext): Set<string> {
  const domains = context.verifiedDomains.get(row.organization_id) ?? [];
  return new Set([
    `${row.site_name}.${context.config.siteBaseDomain}`,
    ...domains,
    ...domains.map((d) => `apps.${d}`),
  ]);
}

/** Why this app's launch URL is not Roundcube on this host, or null. */
function notServedHere(row: WebmailAppRow, url: URL | undefined, context: WebmailContext): string | null {
  if (!url) return 'the launch URL is not a URL';
  if (!hostsOf(row, context).has(url.hostname)) return `${url.hostname} is not a host of its organisation`;
  if (url.pathname.replace(/\/+$/, '') !== WEBMAIL_PATH) return `the launch URL is not under ${WEBMAIL_PATH}`;
  if (url.search || url.hash) return 'the launch URL has a query or fragment';
  return null;
}

/**
 * TLS options for `tls://host:port`. On loopback (Roundcube beside Postfix and Dovecot, as install
 * sets it up) the connection never leaves this host, and the certificate is issued for MAIL_HOST
 * by a CA PHP may not trust (Caddy's own with --internal-tls, the self-signed stand-in of a new
 * host): it is not verified, as Mail-in-a-Box does. Elsewhere PHP checks it against MAIL_HOST.
 */
function connOptionLines(key: 'imap' | 'smtp', address: string, mailHost: string): string[] {
  const tls = /^(tls|ssl):\/\/(.+):\d+$/i.exec(address);
  if (!tls) return [];
  const loopback = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/i.test(tls[2]!);
  const ssl = loopback
    ? "['verify_peer' => false, 'verify_peer_name' => false]"
    : `['peer_name' => ${phpString(mailHost)}]`;
  return [`$config['${key}_conn_options'] = ['ssl' => ${ssl}];`];
}

/**
 * Roundcube's calls to the provider that no browser sees (the code for tokens, the user's
 * e-mail), straight to Atrium on loopback (WEBMAIL_PROVIDER_URL): through PUBLIC_URL they would
 * leave and re-enter the host and need its CA store to trust Caddy's certificate.
 */
function backchannelLines(providerUrl: string | undefined): string[] {
  if (!providerUrl) return [];
  const issuer = `${providerUrl.replace(/\/+$/, '')}/oidc`;
  return [
    `$config['oauth_token_uri'] = ${phpString(`${issuer}/token`)};`,
    `$config['oauth_identity_uri'] = ${phpString(`${issuer}/me`)};`,
  ];
}

/** One Mail app's file: its snippet as the app's page shows it, then what differs on this host. */
function hostFile(row: WebmailAppRow, url: URL, clientSecret: string, context: WebmailContext): string {
  const { config, template } = context;
  const launchUrl = url.href.replace(/\/+$/, '');
  // Every value goes in as a PHP string's contents: the Mail template puts each in '…'.
  const escaped = (values: Record<string, string>) =>
    Object.fromEntries(Object.entries(values).map(([k, v]) => [k, phpString(v).slice(1, -1)]));
  const snippet = fillPlaceholders(
    template.configSnippet.template,
    escaped({
      ...providerEndpoints(config),
      clientId: row.client_id,
      clientSecret,
      redirectUri: `${launchUrl}/index.php/login/oauth`,
      postLogoutRedirectUri: `${launchUrl}/`,
      backchannelLogoutUri: '',
      launchUrl,
      mailHost: config.mailHost,
    }),
  );
  const { imapHost, smtpHost, providerUrl } = config.webmail;
  return [
    ...HEADER,
    `// Mail app ${row.app_id} of organisation ${row.organization_id}.`,
    snippet,
    // Roundcube runs beside Dovecot and Postfix: IMAP and submission over loopback
    // (WEBMAIL_IMAP_HOST, WEBMAIL_SMTP_HOST), not out and back in through MAIL_HOST.
    `$config['imap_host'] = ${phpString(imapHost)};`,
    `$config['smtp_host'] = ${phpString(smtpHost)};`,
    ...connOptionLines('imap', imapHost, config.mailHost),
    ...connOptionLines('smtp', smtpHost, config.mailHost),
    ...backchannelLines(providerUrl),
    // Caddy strips /webmail before PHP sees the path; Roundcube builds its redirect URI and
    // links from this instead of guessing it from the request.
    `$config['request_path'] = ${phpString(`${url.pathname.replace(/\/+$/, '')}/`)};`,
    '',
  ].join('\n');
}

/**
 * `<host>.inc.php` for every Mail app whose launch URL is `https://<a host of its
 * organisation>/webmail`; the first app installed on a host has it, later ones are skipped.
 */
export function webmailHostFiles(rows: WebmailAppRow[], context: WebmailContext): WebmailHostFiles {
  const files: Record<string, string> = {};
  const skipped: WebmailHostFiles['skipped'] = [];
  for (const row of rows) {
    let url: URL | undefined;
    try {
      url = new URL(row.launch_url);
    } catch {
      url = undefined;
    }
    const problem = notServedHere(row, url, context);
    if (problem || !url) {
      skipped.push({ appId: row.app_id, reason: problem ?? 'no URL' });
      continue;
    }
    const name = hostFileName(url);
    if (name in files) {
      skipped.push({ appId: row.app_id, reason: `an earlier Mail app has ${url.host}` });
      continue;
    }
    let secret: string;
    try {
      if (!row.client_secret_enc) throw new Error('no secret');
      secret = context.openSecret(row.client_secret_enc);
    } catch {
      skipped.push({ appId: row.app_id, reason: 'its client secret cannot be opened with ATRIUM_SECRET' });
      continue;
    }
    files[name] = hostFile(row, url, secret, context);
  }
  return { files, skipped };
}

/**
 * Writes each file atomically (a temporary file renamed over the old one), so Roundcube never
 * includes half a file, and deletes the `*.inc.php` files no Mail app has any more. Mode 0640:
 * Atrium and the directory's group (www-data, the directory being set-group-ID), nobody else,
 * since each holds a client secret. Returns the names written or deleted.
 */
export function writeWebmailHostFiles(dir: string, written: WebmailHostFiles): string[] {
  // Install makes it 2750 atrium:www-data; this is for a directory it did not make (tests).
  mkdirSync(dir, { recursive: true, mode: 0o750 });
  const changed: string[] = [];
  for (const [name, text] of Object.entries(written.files)) {
    if (writeFileIfChanged(dir, name, text, 0o640)) changed.push(name);
  }
  for (const name of readdirSync(dir)) {
    if (isHostFileName(name) && !(name in written.files)) {
      unlinkSync(path.join(dir, name));
      changed.push(name);
    }
  }
  return changed;
}
