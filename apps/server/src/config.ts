import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import { parse as parseDomain } from 'tldts';
import { z } from 'zod';
import { parseDnsUpdateSettings, type DnsUpdateSettings } from './dns-update-config.ts';

/** A setting that is wrong; start-up prints its one-line message and stops. */
export class ConfigError extends Error {
  readonly setting: string;
  constructor(setting: string, problem: string) {
    super(`Invalid setting ${setting}: ${problem}`);
    this.setting = setting;
  }
}

const booleanSetting = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const hostPort = z
  .string()
  .trim()
  .regex(/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$/, 'expected ip or ip:port');

/** Roundcube's `imap_host`/`smtp_host` syntax: an optional tls:// (STARTTLS) or ssl://, host:port. */
const roundcubeHost = /^((tls|ssl):\/\/)?([\w.-]+|\[[\d:a-f]+\]):\d{1,5}$/i;

const envSchema = z.object({
  PORT: z.coerce
    .number({ message: 'expected a port number' })
    .int('expected a whole number')
    .min(0, 'expected 0-65535')
    .max(65535, 'expected 0-65535')
    .default(8080),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: z.url({ message: 'expected an absolute http(s) URL' }).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'expected smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).optional(),
  DNS_SERVERS: z.string().optional(),
  SITE_BASE_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, 'expected a domain name')
    .optional(),
  MAIL_HOST: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, 'expected a host name')
    .optional(),
  APP_CATALOG: z.string().optional(),
  PLAN_CATALOG: z.string().optional(),
  SUBSCRIPTION_WEBHOOK_URL: z
    .string()
    .regex(/^https?:\/\/\S+$/, 'expected an http:// or https:// URL')
    .optional(),
  SUBSCRIPTION_WEBHOOK_SECRET: z.string().min(16, 'expected at least 16 characters').optional(),
  ATRIUM_SECRET: z.string().min(32, 'expected at least 32 characters').optional(),
  OPERATOR_TOKEN: z.string().trim().min(32, 'expected at least 32 characters').optional(),
  BACKUP_TOKEN: z.string().trim().min(32, 'expected at least 32 characters').optional(),
  ALLOW_UNVERIFIED_DOMAINS: booleanSetting.default(false),
  BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS: booleanSetting.default(false),
  // Mail migration: old providers on loopback, private or this host's addresses (tests, intranets).
  MIGRATION_PRIVATE_HOSTS: booleanSetting.default(false),
  ACCOUNT_PORTAL_URL: z
    .string()
    .regex(/^(\/(?!\/)|https?:\/\/)\S*$/, 'expected a path starting with / or an http(s):// URL')
    .default('/profile'),
  DOMAIN_RECHECK_INTERVAL_SECONDS: z.coerce
    .number({ message: 'expected a number of seconds' })
    .int()
    .min(5, 'expected at least 5')
    .default(600),
  MAX_DOMAINS_PER_ORGANIZATION: z.coerce
    .number({ message: 'expected a number' })
    .int('expected a whole number')
    .min(1, 'expected at least 1')
    .max(10_000, 'expected at most 10000')
    .default(30),
  DNS_TIMEOUT_MS: z.coerce
    .number({ message: 'expected a number of milliseconds' })
    .int('expected a whole number')
    .min(100, 'expected at least 100')
    .max(30_000, 'expected at most 30000')
    .default(2000),
  DNS_UPDATE_SERVER: z.string().optional(),
  DNS_UPDATE_ZONE: z.string().optional(),
  DNS_UPDATE_TSIG: z.string().optional(),
  DNS_UPDATE_TARGET: z.string().optional(),
  DNS_UPDATE_TTL: z.string().optional(),
  MAIL_SOCKETMAP_ADDRESS: z
    .string()
    .trim()
    .regex(
      /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]):\d{1,5}$/,
      'expected a loopback ip:port such as 127.0.0.1:10027',
    )
    .optional(),
  // Atrium's Postfix policy service (issue 44: sending limits), asked by submission per message.
  MAIL_POLICY_ADDRESS: z
    .string()
    .trim()
    .regex(
      /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]):\d{1,5}$/,
      'expected a loopback ip:port such as 127.0.0.1:10040',
    )
    .optional(),
  MAIL_DICT_SOCKET: z.string().trim().regex(/^\//, 'expected an absolute path of a unix socket').optional(),
  MAIL_DKIM_DIR: z.string().trim().regex(/^\//, 'expected an absolute path of a directory').optional(),
  MAIL_DKIM_OPENDKIM_DIR: z
    .string()
    .trim()
    .regex(/^\//, 'expected an absolute path of a directory')
    .optional(),
  // Where Atrium reaches Dovecot's IMAP as its master user (mail migration); default 127.0.0.1:143.
  MAIL_IMAP_ADDRESS: z
    .string()
    .trim()
    .regex(/^[\w.-]+:\d{1,5}$|^\[[\d:a-f]+\]:\d{1,5}$/i, 'expected host:port such as 127.0.0.1:143')
    .optional(),
  // Radicale on this host (docs/dav.md): Atrium creates each user's default calendar and address
  // book there, writes the organisation's address book and removes a deleted user's collections.
  // Unset: none of that happens.
  DAV_RADICALE_ADDRESS: z
    .string()
    .trim()
    .regex(
      /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]):\d{1,5}$/,
      'expected a loopback ip:port such as 127.0.0.1:5232',
    )
    .optional(),
  // Roundcube served on this host (docs/mail.md, "Roundcube: the Mail app"): where Atrium writes
  // its per-host configuration, and where that Roundcube reaches IMAP and submission.
  WEBMAIL_CONFIG_DIR: z.string().trim().regex(/^\//, 'expected an absolute path of a directory').optional(),
  WEBMAIL_IMAP_HOST: z
    .string()
    .trim()
    .regex(roundcubeHost, 'expected [tls://]host:port such as 127.0.0.1:143')
    .default('127.0.0.1:143'),
  WEBMAIL_SMTP_HOST: z
    .string()
    .trim()
    .regex(roundcubeHost, 'expected [tls://]host:port such as 127.0.0.1:587')
    .default('127.0.0.1:587'),
  // Where that Roundcube reaches Atrium's provider for tokens (install: Atrium on loopback).
  WEBMAIL_PROVIDER_URL: z.url({ message: 'expected an absolute http(s) URL' }).optional(),
  // Apple configuration profiles from "Set up a device" are signed with this certificate (PEM, its
  // chain after it) and key when both are given; unsigned otherwise (docs/devices.md).
  DEVICE_PROFILE_SIGNING_CERT: z
    .string()
    .trim()
    .regex(/^\//, 'expected an absolute path of a PEM file')
    .optional(),
  DEVICE_PROFILE_SIGNING_KEY: z
    .string()
    .trim()
    .regex(/^\//, 'expected an absolute path of a PEM file')
    .optional(),
  TRUST_PROXY: z.string().trim().default('false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  publicUrl: URL;
  /** https deployments share cookies across the parent domain (seed spec §9). */
  secureCookies: boolean;
  /**
   * The `Domain` of the console's and the provider's cookies over https: the parent domain of
   * PUBLIC_URL, never above its registrable domain (Public Suffix List). Undefined: host-only
   * (over http, or a host with no registrable domain such as an IP address).
   */
  cookieDomain: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  dnsServers: string[];
  siteBaseDomain: string;
  mailHost: string;
  /** MAIL_HOST was given (install writes it); false: the default `mail.<SITE_BASE_DOMAIN>`. */
  mailHostSet: boolean;
  appCatalog: string | undefined;
  planCatalog: string | undefined;
  /** Where subscription changes are posted, signed with the secret; undefined: nowhere. */
  subscriptionWebhook: { url: string; secret: string } | undefined;
  secret: string;
  /** The bearer token of GET /api/operator/status (monitoring); undefined: that endpoint is off. */
  operatorToken: string | undefined;
  /**
   * The bearer token of GET /api/operator/database-dump, which answers only on this host
   * (modules/operator/backup-access.ts); never handed to a monitor. Undefined: that endpoint is off.
   */
  backupToken: string | undefined;
  allowUnverifiedDomains: boolean;
  /**
   * Logout tokens may go to loopback, private and this host's addresses (apps on Atrium's own host
   * or network; lib/network-policy.ts), and such back-channel logout URIs may be installed.
   * Off by default: an admin's back-channel URI could otherwise reach services behind Atrium.
   */
  backchannelLogoutPrivateNetworks: boolean;
  accountPortalUrl: string;
  domainRecheckIntervalMs: number;
  maxDomainsPerOrganization: number;
  /** Bound on one DNS lookup, retries included; past it the check reports a timeout. */
  dnsTimeoutMs: number;
  /** RFC 2136 updates of the operator's zone (site records, DKIM); undefined: records are only shown. */
  dnsUpdate: DnsUpdateSettings | undefined;
  /**
   * Mail lookups (modules/mail): Postfix's socketmap on a loopback TCP address and Dovecot's dict
   * on a unix socket. Each undefined: that listener is off (mail is an optional part).
   */
  mail: {
    socketmap: { host: string; port: number } | undefined;
    dictSocket: string | undefined;
    /** Where OpenDKIM's KeyTable and SigningTable are written (docs/mail.md); undefined: not written. */
    dkimDir?: string | undefined;
    /**
     * Where OpenDKIM reads root-made copies of them (MAIL_DKIM_OPENDKIM_DIR; deploy/atrium-dkim-sync
     * copies): the KeyTable names key files there. Defaults to dkimDir.
     */
    opendkimDir?: string | undefined;
    /** Dovecot's IMAP, which mail migration writes into as Atrium's master user. */
    imap?: { host: string; port: number };
    /** Atrium's Postfix policy service (MAIL_POLICY_ADDRESS): sending limits; undefined: off. */
    policy?: { host: string; port: number } | undefined;
  };
  /**
   * Roundcube on this host (WEBMAIL_CONFIG_DIR): Atrium writes `<host>.inc.php` there for each
   * Mail app served at `https://<site>.<SITE_BASE_DOMAIN>/webmail`. Undefined: nothing written.
   */
  webmail?: { configDir: string; imapHost: string; smtpHost: string; providerUrl?: string } | undefined;
  /** Radicale's loopback address (DAV_RADICALE_ADDRESS), which Atrium reaches without Caddy. */
  davRadicale?: { host: string; port: number } | undefined;
  /** Certificate and key that sign Apple configuration profiles; undefined: profiles are unsigned. */
  deviceProfileSigning?: { cert: string; key: string } | undefined;
  /**
   * Mail migration may reach loopback, private and this host's addresses (MIGRATION_PRIVATE_HOSTS;
   * lib/network-policy.ts).
   */
  migrationPrivateHosts?: boolean;
  /**
   * Fastify's `trustProxy`: false, the proxies' addresses and CIDRs, or a number of proxy hops
   * (as the function Fastify makes of one: trust the `hop` nearest hops). Never `true` (trust any
   * X-Forwarded-For): anyone reaching the port could pick their own address.
   */
  trustProxy: false | string[] | ((address: string, hop: number) => boolean);
  logLevel: string;
  /** Where the built console lives; the server serves it with SPA fallback. */
  consoleDir: string;
}

export type Env = Record<string, string | undefined>;

/** Reads and checks every setting; throws ConfigError naming the first bad one. */
export function loadConfig(env: Env = process.env): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  ) as Record<string, string>;
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(String(issue.path[0] ?? 'environment'), issue.message);
  }
  const s = parsed.data;
  const publicUrl = new URL(s.PUBLIC_URL ?? `http://localhost:${s.PORT}`);
  if (publicUrl.protocol !== 'http:' && publicUrl.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_URL', 'expected an http:// or https:// URL');
  }
  const dataDir = path.resolve(s.DATA_DIR);
  const siteBaseDomain = (s.SITE_BASE_DOMAIN ?? publicUrl.hostname).toLowerCase();
  const dnsServers = (s.DNS_SERVERS ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const server of dnsServers) {
    if (!hostPort.safeParse(server).success) {
      throw new ConfigError('DNS_SERVERS', `"${server}" is not an ip or ip:port`);
    }
  }
  const dnsUpdate = parseDnsUpdateSettings(s, siteBaseDomain);
  if (dnsUpdate && 'problem' in dnsUpdate) throw new ConfigError(dnsUpdate.setting, dnsUpdate.problem);
  if (s.APP_CATALOG && !existsSync(s.APP_CATALOG)) {
    throw new ConfigError('APP_CATALOG', `file ${s.APP_CATALOG} does not exist`);
  }
  if (s.PLAN_CATALOG && !existsSync(s.PLAN_CATALOG)) {
    throw new ConfigError('PLAN_CATALOG', `file ${s.PLAN_CATALOG} does not exist`);
  }
  for (const [setting, other] of [
    ['DEVICE_PROFILE_SIGNING_CERT', 'DEVICE_PROFILE_SIGNING_KEY'],
    ['DEVICE_PROFILE_SIGNING_KEY', 'DEVICE_PROFILE_SIGNING_CERT'],
  ] as const) {
    const file = s[setting];
    if (file && !s[other]) throw new ConfigError(other, `is required with ${setting}`);
    if (file && !existsSync(file)) throw new ConfigError(setting, `file ${file} does not exist`);
  }
  // The monitors' token must not open the database dump (issue 38).
  if (s.BACKUP_TOKEN && s.BACKUP_TOKEN === s.OPERATOR_TOKEN) {
    throw new ConfigError('BACKUP_TOKEN', 'must differ from OPERATOR_TOKEN, which monitors are given');
  }
  if (s.SUBSCRIPTION_WEBHOOK_URL && !s.SUBSCRIPTION_WEBHOOK_SECRET) {
    throw new ConfigError('SUBSCRIPTION_WEBHOOK_SECRET', 'is required with SUBSCRIPTION_WEBHOOK_URL');
  }
  return {
    port: s.PORT,
    host: s.HOST,
    publicUrl,
    secureCookies: publicUrl.protocol === 'https:',
    cookieDomain: publicUrl.protocol === 'https:' ? cookieDomainOf(publicUrl.hostname) : undefined,
    dataDir,
    databaseUrl: s.DATABASE_URL,
    smtpUrl: s.SMTP_URL,
    mailFrom: s.MAIL_FROM ?? `Atrium <no-reply@${publicUrl.hostname}>`,
    dnsServers,
    siteBaseDomain,
    mailHost: (s.MAIL_HOST ?? `mail.${siteBaseDomain}`).toLowerCase(),
    mailHostSet: s.MAIL_HOST !== undefined,
    appCatalog: s.APP_CATALOG,
    planCatalog: s.PLAN_CATALOG,
    subscriptionWebhook:
      s.SUBSCRIPTION_WEBHOOK_URL && s.SUBSCRIPTION_WEBHOOK_SECRET
        ? { url: s.SUBSCRIPTION_WEBHOOK_URL, secret: s.SUBSCRIPTION_WEBHOOK_SECRET }
        : undefined,
    secret: s.ATRIUM_SECRET ?? readOrCreateSecret(dataDir),
    operatorToken: s.OPERATOR_TOKEN,
    backupToken: s.BACKUP_TOKEN,
    allowUnverifiedDomains: s.ALLOW_UNVERIFIED_DOMAINS,
    backchannelLogoutPrivateNetworks: s.BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS,
    accountPortalUrl: s.ACCOUNT_PORTAL_URL,
    domainRecheckIntervalMs: s.DOMAIN_RECHECK_INTERVAL_SECONDS * 1000,
    maxDomainsPerOrganization: s.MAX_DOMAINS_PER_ORGANIZATION,
    dnsTimeoutMs: s.DNS_TIMEOUT_MS,
    dnsUpdate,
    mail: {
      socketmap: hostAndPort(s.MAIL_SOCKETMAP_ADDRESS),
      dictSocket: s.MAIL_DICT_SOCKET,
      dkimDir: s.MAIL_DKIM_DIR,
      opendkimDir: s.MAIL_DKIM_OPENDKIM_DIR || s.MAIL_DKIM_DIR,
      imap: hostAndPort(s.MAIL_IMAP_ADDRESS ?? '127.0.0.1:143', 'MAIL_IMAP_ADDRESS'),
      policy: hostAndPort(s.MAIL_POLICY_ADDRESS, 'MAIL_POLICY_ADDRESS'),
    },
    davRadicale: hostAndPort(s.DAV_RADICALE_ADDRESS, 'DAV_RADICALE_ADDRESS'),
    webmail: s.WEBMAIL_CONFIG_DIR
      ? {
          configDir: s.WEBMAIL_CONFIG_DIR,
          imapHost: s.WEBMAIL_IMAP_HOST,
          smtpHost: s.WEBMAIL_SMTP_HOST,
          providerUrl: s.WEBMAIL_PROVIDER_URL,
        }
      : undefined,
    deviceProfileSigning:
      s.DEVICE_PROFILE_SIGNING_CERT && s.DEVICE_PROFILE_SIGNING_KEY
        ? { cert: s.DEVICE_PROFILE_SIGNING_CERT, key: s.DEVICE_PROFILE_SIGNING_KEY }
        : undefined,
    migrationPrivateHosts: s.MIGRATION_PRIVATE_HOSTS,
    trustProxy: trustProxyOf(s.TRUST_PROXY),
    logLevel: s.LOG_LEVEL,
    consoleDir: path.resolve(import.meta.dirname, '../../console/dist'),
  };
}

/**
 * `console.example.com` → `example.com`; a registrable domain (`example.com`, `atrium.co.uk`)
 * is its own parent, so the cookie never lands on a public suffix (`co.uk`, `github.io`), where
 * every other site under it would receive it. No registrable domain (IP, `localhost`): host-only.
 */
export function cookieDomainOf(hostname: string): string | undefined {
  const { domain, isIp } = parseDomain(hostname, { allowPrivateDomains: true });
  if (isIp || !domain) return undefined;
  const parent = hostname.slice(hostname.indexOf('.') + 1);
  return parent.length >= domain.length ? parent : hostname;
}

/** `127.0.0.1:10027` or `[::1]:10027` → host and port; undefined stays undefined. */
function hostAndPort(value: string, setting?: string): { host: string; port: number };
function hostAndPort(value: string | undefined, setting?: string): { host: string; port: number } | undefined;
function hostAndPort(value: string | undefined, setting = 'MAIL_SOCKETMAP_ADDRESS') {
  if (!value) return undefined;
  const at = value.lastIndexOf(':');
  const port = Number(value.slice(at + 1));
  if (port < 1 || port > 65535) throw new ConfigError(setting, 'expected a port 1-65535');
  return { host: value.slice(0, at).replace(/^\[|\]$/g, ''), port };
}

const TRUST_PROXY_PROBLEM =
  'expected false, a number of proxy hops (1 behind one proxy) or the proxies’ addresses/CIDRs ' +
  'separated by commas; true is refused because it trusts an X-Forwarded-For from anyone';

/** `false`, `1`, `10.0.0.0/8, 127.0.0.1`: what Fastify's trustProxy accepts, minus `true`. */
function trustProxyOf(value: string): Config['trustProxy'] {
  if (/^(false|no|0)$/i.test(value)) return false;
  if (/^\d{1,2}$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  const entries = value.split(',').map((v) => v.trim());
  const isProxy = (entry: string) => {
    const [address = '', bits, ...rest] = entry.split('/');
    const family = isIP(address);
    if (!family || rest.length) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  };
  if (entries.every(isProxy)) return entries;
  throw new ConfigError('TRUST_PROXY', TRUST_PROXY_PROBLEM);
}

/**
 * First start without ATRIUM_SECRET: generate one and keep it beside the data, readable by this
 * user only (the directory 0700, the file 0600, whatever the umask; start-up tightens an
 * existing one, see secureDataDirectory).
 */
function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  return secret;
}
