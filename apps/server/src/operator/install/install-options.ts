import path from 'node:path';
import { parseArgs } from 'node:util';
import { OperatorProblem } from '../operator-problem.ts';
import type { Settings } from '../settings-file.ts';

export interface InstallOptions {
  root: string;
  dryRun: boolean;
  /** The checkout to deploy (the one the command runs from). */
  checkout: string;
  publicUrl: URL;
  mailHost: string;
  siteBaseDomain: string;
  databaseUrl?: string;
  tls?: { cert: string; key: string };
  /** Caddy's own CA instead of Let's Encrypt (`--internal-tls`). */
  internalTls: boolean;
  mail: boolean;
  webmail: boolean;
  /** Where SMTP, submission and IMAP listen: `all` or an address (tests: 127.0.0.1). */
  listen: string;
  /**
   * `--backup-repository`: where the snapshots go (BACKUP_REPOSITORY, docs/backup.md "Choosing the
   * repository"): another machine (sftp:, rest:…) or a mounted disk, not the host they protect.
   */
  backupRepository?: string;
  ports: {
    atrium: number;
    http?: number;
    https?: number;
    smtp: number;
    submission: number;
    imap: number;
    lmtp: number;
    auth: number;
    quotaStatus: number;
    dkim: number;
    socketmap: number;
    /**
     * Where the supervisor relays Postfix's SASL to Dovecot's auth (supervisor/sasl-relay.ts), so
     * a sign-in that Atrium cannot check is a temporary failure, never "wrong password".
     */
    sasl: number;
    /** Postfix's loopback listener for Atrium's own mail (SMTP_URL). */
    relay: number;
    /** IMAP and submission with TLS from the first byte, where devices are told to connect. */
    imaps: number;
    submissions: number;
    /** rspamd's milter and controller (loopback), and the Redis it keeps its data in (Debian's service). */
    rspamd: number;
    rspamdController: number;
    redis: number;
    /** Dovecot's ManageSieve (filters from Roundcube and mail apps), on `listen` like IMAP. */
    managesieve: number;
    /** Atrium's Postfix policy service (sending limits, MAIL_POLICY_ADDRESS), on loopback. */
    policy: number;
  };
}

const PORT_DEFAULTS = {
  atrium: 8080,
  smtp: 25,
  submission: 587,
  imap: 143,
  lmtp: 24,
  auth: 12345,
  quotaStatus: 12340,
  dkim: 8891,
  socketmap: 10027,
  sasl: 10028,
  relay: 10025,
  imaps: 993,
  submissions: 465,
  rspamd: 11332,
  rspamdController: 11334,
  redis: 6379,
  managesieve: 4190,
  policy: 10040,
};

const portOption = (name: string) => `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}-port`;

export const INSTALL_USAGE = `  npm run atrium -- install --public-url <https://atrium.example.com> [--mail-host <mail.example.com>]
                            [--site-base-domain <domain>] [--database-url <postgres://…>]
                            [--tls-cert <file> --tls-key <file>] [--internal-tls] [--no-mail] [--no-webmail]
                            [--listen all|<ip>] [--<name>-port <n>] [--dry-run] [--root <dir>]
                            [--backup-repository sftp:user@host:/path|rest:https://host/path|/mnt/disk/path]`;

/**
 * The command line, with what an earlier run recorded in the settings file as defaults: a second
 * run needs no options, and an option given again replaces what was recorded.
 */
export function parseInstallOptions(
  args: string[],
  checkout: string,
  earlier: Settings | undefined,
): InstallOptions {
  const { values } = parseArgs({
    args,
    options: {
      'public-url': { type: 'string' },
      'mail-host': { type: 'string' },
      'site-base-domain': { type: 'string' },
      'database-url': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'no-mail': { type: 'boolean' },
      'internal-tls': { type: 'boolean' },
      'no-webmail': { type: 'boolean' },
      listen: { type: 'string' },
      'backup-repository': { type: 'string' },
      'dry-run': { type: 'boolean' },
      root: { type: 'string' },
      'http-port': { type: 'string' },
      'https-port': { type: 'string' },
      ...Object.fromEntries(
        Object.keys(PORT_DEFAULTS).map((n) => [portOption(n), { type: 'string' as const }]),
      ),
    },
    strict: true,
  });
  const was = earlier ?? {};
  const rawUrl = values['public-url'] ?? was.PUBLIC_URL;
  if (!rawUrl)
    throw new OperatorProblem(
      "--public-url is required on the first install: the console's address, e.g. https://atrium.example.com",
    );
  let publicUrl: URL;
  try {
    publicUrl = new URL(rawUrl);
  } catch {
    throw new OperatorProblem(
      `--public-url ${rawUrl}: not an absolute URL (e.g. https://atrium.example.com)`,
    );
  }
  if (publicUrl.protocol !== 'https:' && publicUrl.protocol !== 'http:') {
    throw new OperatorProblem(`--public-url ${rawUrl}: expected an https:// address`);
  }
  const hostName = (option: string, value: string) => {
    const name = value.trim().toLowerCase().replace(/\.$/, '');
    if (
      !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/.test(name)
    ) {
      throw new OperatorProblem(`--${option} ${value}: not a host name`);
    }
    return name;
  };
  const publicHost = publicUrl.hostname;
  const mailHost = hostName('mail-host', values['mail-host'] ?? was.MAIL_HOST ?? `mail.${publicHost}`);
  const siteBaseDomain = hostName(
    'site-base-domain',
    values['site-base-domain'] ?? was.SITE_BASE_DOMAIN ?? publicHost,
  );
  const cert = values['tls-cert'] ?? was.ATRIUM_INSTALL_TLS_CERT;
  const key = values['tls-key'] ?? was.ATRIUM_INSTALL_TLS_KEY;
  if (Boolean(cert) !== Boolean(key)) throw new OperatorProblem('--tls-cert and --tls-key go together');
  for (const file of [cert, key]) {
    if (file && !path.isAbsolute(file))
      throw new OperatorProblem(`--tls-cert/--tls-key ${file}: expected an absolute path`);
  }
  const port = (name: string, fallback: number | undefined): number | undefined => {
    const given =
      (values as Record<string, string | undefined>)[portOption(name)] ??
      was[`ATRIUM_INSTALL_${name.toUpperCase()}_PORT`];
    if (given === undefined) return fallback;
    const n = Number(given);
    if (!Number.isInteger(n) || n < 1 || n > 65535)
      throw new OperatorProblem(`--${portOption(name)} ${given}: expected a port number 1-65535`);
    return n;
  };
  const ports = Object.fromEntries(
    Object.entries(PORT_DEFAULTS).map(([name, fallback]) => [name, port(name, fallback)]),
  ) as InstallOptions['ports'];
  ports.http = port('http', undefined);
  ports.https = port('https', undefined);
  const backupRepository = values['backup-repository'];
  if (backupRepository !== undefined && !isResticRepository(backupRepository)) {
    throw new OperatorProblem(
      `--backup-repository ${backupRepository}: expected a restic repository — sftp:user@host:/path, rest:https://host:8000/path, or an absolute path on a mounted disk`,
    );
  }
  const root = path.resolve(values.root ?? '/');
  const flag = (given: boolean | undefined, recorded: string | undefined) => !(given ?? recorded === 'false');
  return {
    root,
    dryRun: values['dry-run'] ?? false,
    checkout,
    publicUrl,
    mailHost,
    siteBaseDomain,
    databaseUrl: values['database-url'] ?? was.DATABASE_URL,
    tls: cert && key ? { cert, key } : undefined,
    internalTls: values['internal-tls'] ?? was.ATRIUM_INSTALL_INTERNAL_TLS === 'true',
    mail: flag(values['no-mail'], was.ATRIUM_INSTALL_MAIL),
    webmail: flag(values['no-webmail'], was.ATRIUM_INSTALL_WEBMAIL),
    listen: values.listen ?? was.ATRIUM_INSTALL_LISTEN ?? 'all',
    backupRepository,
    ports,
  };
}

/** What restic takes as a repository: an absolute path, or one of its backends' addresses. */
function isResticRepository(value: string): boolean {
  return path.isAbsolute(value) || /^(sftp|rest|s3|b2|azure|gs|swift|rclone):\S+$/.test(value);
}
