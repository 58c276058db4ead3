import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../config.ts';
import { mailClient } from '../../modules/mail/mail-client.ts';
import { rspamdMapToken } from '../../modules/mail-protection/rspamd-maps.ts';
import {
  mailConfigFiles,
  isSecretFile,
  type MailConfigOptions,
} from '../../modules/mail/config/mail-config.ts';
import { masterPassword } from '../../modules/mail/config/mail-master-user.ts';
import { MAIL_USER, SERVICE_USER, type HostLayout } from '../host-layout.ts';
import { SIEVE_FILES } from '../../modules/mail/config/dovecot-config.ts';
import { formatSettings, type Settings } from '../settings-file.ts';
import type { HostItem } from './host-changes.ts';
import type { InstallOptions } from './install-options.ts';
import { backupCron, backupServiceUnit, backupTimerUnit } from './backup-units.ts';
import { caddyfile } from './caddyfile.ts';
import { logrotateConfig } from './logrotate.ts';
import {
  covers,
  operatorCertificate,
  tlsCron,
  tlsServiceUnit,
  tlsSyncArgs,
  tlsTimerUnit,
} from './mail-tls-files.ts';
import { davCaddyRoutes, RADICALE_PORT, radicaleConfig, radicaleRights } from './dav-files.ts';
import {
  debianDatabaseConfigured,
  newDesKey,
  roundcubeMainConfig,
  WEBMAIL_POOL,
  webmailCaddyRoutes,
  webmailPaths,
  webmailPhpFpmPool,
} from './webmail-files.ts';
import {
  atriumInitScript,
  caddyInitScript,
  atriumUnit,
  dkimCron,
  dkimPathUnit,
  dkimServiceUnit,
  opendkimDefaults,
} from './service-files.ts';
import { installRspamdOptions, rspamdItem } from './rspamd-files.ts';

const SETTINGS_HEADER =
  '# Atrium\'s settings (README, "Configuration"), written by `npm run atrium -- install`.\n' +
  '# Re-run install with options to change them; ATRIUM_SECRET, OPERATOR_TOKEN and BACKUP_TOKEN are kept across runs.\n' +
  '# OPERATOR_TOKEN is for monitors (GET /api/operator/status); BACKUP_TOKEN never leaves this host.\n' +
  '# ATRIUM_INSTALL_* record the options install was given, for the next run.\n';

/** Settings install decides; any other line of the file is the operator's and is kept. */
export const MANAGED =
  /^(PUBLIC_URL|SITE_BASE_DOMAIN|MAIL_HOST|HOST|PORT|TRUST_PROXY|DATA_DIR|DATABASE_URL|MAIL_SOCKETMAP_ADDRESS|MAIL_SASL_ADDRESS|MAIL_DOVECOT_AUTH_ADDRESS|MAIL_DICT_SOCKET|MAIL_DKIM_DIR|MAIL_DKIM_OPENDKIM_DIR|MAIL_IMAP_ADDRESS|MAIL_POLICY_ADDRESS|WEBMAIL_CONFIG_DIR|WEBMAIL_IMAP_HOST|WEBMAIL_SMTP_HOST|WEBMAIL_PROVIDER_URL|DAV_RADICALE_ADDRESS|ATRIUM_INSTALL_.*)$/;

/** The settings file: what Atrium reads, install's record of its options, the operator's own lines. */
export function installSettings(
  o: InstallOptions,
  layout: HostLayout,
  earlier: Settings | undefined,
): Settings {
  const operators = Object.fromEntries(Object.entries(earlier ?? {}).filter(([key]) => !MANAGED.test(key)));
  const secret = earlier?.ATRIUM_SECRET ?? randomBytes(32).toString('base64url');
  const operatorToken = earlier?.OPERATOR_TOKEN ?? randomBytes(32).toString('base64url');
  // The backup's own key to the database dump (docs/backup.md): monitors get OPERATOR_TOKEN only.
  const backupToken = earlier?.BACKUP_TOKEN ?? randomBytes(32).toString('base64url');
  const settings: Settings = {
    PUBLIC_URL: o.publicUrl.href.replace(/\/$/, ''),
    SITE_BASE_DOMAIN: o.siteBaseDomain,
    MAIL_HOST: o.mailHost,
    HOST: '127.0.0.1',
    PORT: String(o.ports.atrium),
    // One proxy in front (Caddy on this host): Atrium reads the client address it appends.
    TRUST_PROXY: '1',
    DATA_DIR: layout.dataDir,
    ...(o.databaseUrl ? { DATABASE_URL: o.databaseUrl } : {}),
    ATRIUM_SECRET: secret,
    OPERATOR_TOKEN: operatorToken,
    BACKUP_TOKEN: backupToken,
  };
  if (o.mail) {
    Object.assign(settings, {
      MAIL_SOCKETMAP_ADDRESS: `127.0.0.1:${o.ports.socketmap}`,
      // The supervisor's relay between Postfix's SASL and Dovecot's auth (supervisor/sasl-relay.ts).
      MAIL_SASL_ADDRESS: `127.0.0.1:${o.ports.sasl}`,
      MAIL_DOVECOT_AUTH_ADDRESS: `127.0.0.1:${o.ports.auth}`,
      MAIL_DICT_SOCKET: layout.dictSocket,
      MAIL_DKIM_DIR: layout.dkimDir,
      MAIL_DKIM_OPENDKIM_DIR: layout.opendkimKeysDir,
      MAIL_IMAP_ADDRESS: `127.0.0.1:${o.ports.imap}`,
      // Postfix's submission asks here for the sending limits (docs/mail.md).
      MAIL_POLICY_ADDRESS: `127.0.0.1:${o.ports.policy}`,
      // Where Atrium makes default calendars and removes deleted users' (docs/dav.md).
      DAV_RADICALE_ADDRESS: `127.0.0.1:${RADICALE_PORT}`,
    });
    // Atrium's own mail (sign-in codes, invitations) leaves through this host's Postfix, signed
    // like the users' (its loopback listener, mail-config.ts); an SMTP_URL the file holds (the
    // operator's relay) is kept, on its line.
    settings.SMTP_URL = earlier?.SMTP_URL ?? `smtp://127.0.0.1:${o.ports.relay}`;
  }
  if (o.mail && o.webmail) {
    Object.assign(settings, {
      WEBMAIL_CONFIG_DIR: layout.webmailConfigDir,
      // Roundcube, beside Dovecot and Postfix, reaches them over loopback: IMAP in the clear
      // (Dovecot takes a sign-in from loopback), submission with STARTTLS, which it requires
      // before AUTH; and Atrium's provider for tokens without leaving the host.
      WEBMAIL_IMAP_HOST: `127.0.0.1:${o.ports.imap}`,
      WEBMAIL_SMTP_HOST: `tls://127.0.0.1:${o.ports.submission}`,
      WEBMAIL_PROVIDER_URL: `http://127.0.0.1:${o.ports.atrium}`,
    });
  }
  // Install's own record: a second run without options installs the same host.
  Object.assign(settings, {
    ATRIUM_INSTALL_MAIL: String(o.mail),
    ATRIUM_INSTALL_WEBMAIL: String(o.webmail),
    ATRIUM_INSTALL_INTERNAL_TLS: String(o.internalTls),
    ATRIUM_INSTALL_LISTEN: o.listen,
    ...(o.tls ? { ATRIUM_INSTALL_TLS_CERT: o.tls.cert, ATRIUM_INSTALL_TLS_KEY: o.tls.key } : {}),
    ...Object.fromEntries(
      Object.entries(o.ports)
        .filter(([, port]) => port !== undefined)
        .map(([name, port]) => [`ATRIUM_INSTALL_${name.toUpperCase()}_PORT`, String(port)]),
    ),
  });
  // The operator's own lines last, in their order, so a second run writes the same file;
  // --backup-repository sets BACKUP_REPOSITORY, an operator's line it then keeps.
  return Object.assign(
    settings,
    operators,
    o.backupRepository ? { BACKUP_REPOSITORY: o.backupRepository } : {},
  );
}

const dir = (p: string, owner: string, group: string, mode: number): HostItem => ({
  kind: 'dir',
  path: p,
  owner,
  group,
  mode,
});
const file = (
  p: string,
  content: string,
  owner: string,
  group: string,
  mode: number,
  affects?: string[],
): HostItem => ({
  kind: 'file',
  path: p,
  content,
  owner,
  group,
  mode,
  affects,
});

/**
 * Everything install leaves on the host, in order (directories before what they hold). Owners and
 * modes are the ones each daemon accepts: OpenDKIM's keys are opendkim's own (RequireSafeKeys),
 * Dovecot's secret files root's, the dict socket's directory atrium:dovecot.
 */
export function installPlan(
  o: InstallOptions,
  layout: HostLayout,
  settings: Settings,
  release: string,
): HostItem[] {
  const tls = mailTls(o, layout);
  const items: HostItem[] = [
    dir(path.dirname(layout.releases), 'root', 'root', 0o755),
    dir(layout.releases, 'root', 'root', 0o755),
    { kind: 'link', path: layout.current, target: path.join(layout.releases, release), affects: ['atrium'] },
    dir(layout.settingsDir, 'root', SERVICE_USER, 0o750),
    file(layout.settingsFile, formatSettings(settings, SETTINGS_HEADER), 'root', SERVICE_USER, 0o640, [
      'atrium',
    ]),
    // Others may pass through (webmail's directory below is www-data's to read), not list.
    dir(layout.stateDir, SERVICE_USER, SERVICE_USER, 0o711),
    dir(layout.dataDir, SERVICE_USER, SERVICE_USER, 0o700),
    dir(layout.backupDir, SERVICE_USER, SERVICE_USER, 0o700),
    dir(layout.logDir, SERVICE_USER, 'adm', 0o750),
    file(path.join(layout.logrotateDir, 'atrium'), logrotateConfig(layout, o), 'root', 'root', 0o644),
    file(path.join(layout.systemdDir, 'atrium.service'), atriumUnit(layout, o), 'root', 'root', 0o644, [
      'atrium',
    ]),
    file(path.join(layout.initDir, 'atrium'), atriumInitScript(layout, o), 'root', 'root', 0o755),
    file(
      path.join(layout.systemdDir, 'atrium-backup.service'),
      backupServiceUnit(layout),
      'root',
      'root',
      0o644,
    ),
    file(
      path.join(layout.systemdDir, 'atrium-backup.timer'),
      backupTimerUnit(settings),
      'root',
      'root',
      0o644,
      ['atrium-backup.timer'],
    ),
    file(path.join(layout.cronDir, 'atrium-backup'), backupCron(layout, settings), 'root', 'root', 0o644),
    file(path.join(layout.initDir, 'atrium-caddy'), caddyInitScript(layout), 'root', 'root', 0o755, [
      'caddy',
    ]),
    // Caddy's home (Debian's package makes it on a host) and its log, which it writes as caddy.
    dir(path.join(layout.root, 'var/lib/caddy'), 'caddy', 'caddy', 0o755),
    dir(path.dirname(layout.caddyLog), 'caddy', 'adm', 0o750),
    file(
      layout.caddyfile,
      caddyfile({
        publicHost: o.publicUrl.hostname,
        atriumPort: o.ports.atrium,
        mailHost: o.mail ? o.mailHost : undefined,
        siteBaseDomain: o.siteBaseDomain,
        tls: o.tls && { ...o.tls, covers: (host) => covers(tls.certificate, host) },
        httpPort: o.ports.http,
        httpsPort: o.ports.https,
        internalTls: o.internalTls,
        log: layout.caddyLog,
        adminOff: layout.root !== '/',
        webmailRoutes: o.mail && o.webmail ? webmailCaddyRoutes(webmailPaths(layout)) : undefined,
        davRoutes: o.mail ? davCaddyRoutes({ mailHost: o.mailHost, atriumPort: o.ports.atrium }) : undefined,
      }),
      'root',
      'caddy',
      0o640,
      ['caddy'],
    ),
  ];
  if (!o.mail) return items;
  items.push(
    // Postfix's postlogd and Dovecot's log process write here as root.
    dir(layout.mailLogDir, 'root', 'adm', 0o750),
    dir(layout.mailRoot, MAIL_USER, MAIL_USER, 0o770),
    dir(layout.dkimDir, SERVICE_USER, SERVICE_USER, 0o700),
    dir(path.dirname(layout.opendkimKeysDir), 'root', 'root', 0o755),
    dir(layout.opendkimKeysDir, 'opendkim', 'opendkim', 0o700),
    file(path.join(layout.systemdDir, 'atrium-dkim.path'), dkimPathUnit(layout), 'root', 'root', 0o644),
    file(path.join(layout.systemdDir, 'atrium-dkim.service'), dkimServiceUnit(layout), 'root', 'root', 0o644),
    file(path.join(layout.cronDir, 'atrium-dkim'), dkimCron(layout), 'root', 'root', 0o644),
    file(layout.opendkimDefaults, opendkimDefaults(o.ports.dkim), 'root', 'root', 0o644, ['opendkim']),
    // The mail host's certificate for Postfix and Dovecot, copied every minute (mail-tls-files.ts).
    dir(layout.mailTlsDir, 'root', 'root', 0o700),
    file(
      path.join(layout.systemdDir, 'atrium-tls.service'),
      tlsServiceUnit(layout, tls.syncArgs),
      'root',
      'root',
      0o644,
    ),
    file(path.join(layout.systemdDir, 'atrium-tls.timer'), tlsTimerUnit(), 'root', 'root', 0o644),
    file(path.join(layout.cronDir, 'atrium-tls'), tlsCron(layout, tls.syncArgs), 'root', 'root', 0o644),
    // Read by Radicale, which runs as the package's radicale user.
    file(
      layout.radicaleConfig,
      radicaleConfig({ rightsFile: layout.radicaleRights, storage: layout.radicaleStorage }),
      'root',
      'radicale',
      0o640,
      ['radicale'],
    ),
    file(layout.radicaleRights, radicaleRights(), 'root', 'radicale', 0o640, ['radicale']),
    // Debian's package makes it on a host; under --root it is the root's own (backup reads it there).
    dir(layout.radicaleStorage, 'radicale', 'radicale', 0o750),
  );
  if (o.webmail) items.push(...webmailItems(layout, o.ports.managesieve));
  for (const [name, text] of Object.entries(mailFiles(o, layout, settings))) {
    if (name.startsWith('rspamd/')) {
      items.push(rspamdItem(layout, name, text));
      continue;
    }
    const [daemon, base] = name.split('/') as [string, string];
    const target =
      daemon === 'postfix'
        ? path.join(layout.postfixDir, base)
        : daemon === 'dovecot'
          ? path.join(layout.dovecotDir, base)
          : layout.opendkimConf;
    const service = daemon === 'opendkim' ? 'opendkim' : daemon;
    if (base === 'atrium-master-users') {
      // Read by Dovecot's auth process, which runs as dovecot (docs/mail.md).
      items.push(file(target, text, 'root', 'dovecot', 0o640, [service]));
    } else if (base === SIEVE_FILES.learnPassword) {
      // rspamd's controller password: IMAPSieve's rspamc runs as the mail user (docs/mail.md).
      items.push(file(target, text, 'root', MAIL_USER, 0o640, [service]));
    } else {
      items.push(file(target, text, 'root', 'root', isSecretFile(base) ? 0o600 : 0o644, [service]));
    }
  }
  return items;
}

/**
 * Roundcube behind Caddy at /webmail: the directory Atrium writes each host's file into
 * (www-data reads it through the set-group-ID bit), Atrium's block in Roundcube's config.inc.php
 * and the atrium-webmail PHP-FPM pool (webmail-files.ts).
 */
function webmailItems(layout: HostLayout, managesievePort: number): HostItem[] {
  const paths = webmailPaths(layout);
  const roundcubeConfig = path.join(layout.roundcubeDir, 'config.inc.php');
  return [
    dir(layout.webmailConfigDir, SERVICE_USER, 'www-data', 0o2750),
    file(
      roundcubeConfig,
      roundcubeMainConfig(readHostFile(layout, roundcubeConfig) ?? '<?php\n', {
        database: paths.database,
        debianDatabase: roundcubeHasDatabase(layout),
        newKey: () => newDesKey(randomBytes),
        // Dovecot's ManageSieve, for Roundcube's filters (install's --managesieve-port).
        managesieve: `127.0.0.1:${managesievePort}`,
      }),
      'root',
      'www-data',
      0o640,
      ['php8.2-fpm'],
    ),
    file(
      path.join(layout.phpFpmPoolDir, `${WEBMAIL_POOL}.conf`),
      webmailPhpFpmPool(paths),
      'root',
      'root',
      0o644,
      ['php8.2-fpm'],
    ),
  ];
}

/** Whether Debian's dbconfig gave Roundcube a database; install makes a SQLite one otherwise. */
export function roundcubeHasDatabase(layout: HostLayout): boolean {
  const debianDb = readHostFile(layout, path.join(layout.roundcubeDir, 'debian-db.php'));
  return debianDb !== undefined && debianDatabaseConfigured(debianDb);
}

/**
 * A file below the root, or under --root where install has not written it yet, the host's own
 * (Debian's package files are read, never written, outside the root).
 */
function readHostFile(layout: HostLayout, file: string): string | undefined {
  for (const candidate of [file, path.join('/', path.relative(layout.root, file))]) {
    try {
      return readFileSync(candidate, 'utf8');
    } catch {
      // next
    }
  }
  return undefined;
}

/** mail-config's files for this host, from the settings install writes (no database needed). */
function mailFiles(o: InstallOptions, layout: HostLayout, settings: Settings) {
  const config = loadConfig({ ...settings, DATA_DIR: layout.dataDir });
  const onHost = layout.root === '/';
  const logs = {
    postfix: path.join(layout.mailLogDir, 'postfix.log'),
    dovecot: path.join(layout.mailLogDir, 'dovecot.log'),
  };
  const options: MailConfigOptions = {
    hostname: o.mailHost,
    atriumUrl: `http://127.0.0.1:${o.ports.atrium}`,
    socketmap: { host: '127.0.0.1', port: o.ports.socketmap },
    dictSocket: layout.dictSocket,
    client: mailClient(config),
    masterPassword: masterPassword(config.secret),
    policy: config.mail.policy,
    rspamdMapToken: rspamdMapToken(config.secret),
    listen: o.listen,
    ports: o.ports,
    mailRoot: layout.mailRoot,
    mailUser: MAIL_USER,
    // Always: the copy atrium-tls-sync keeps of Caddy's (or the operator's) certificate.
    tls: { cert: layout.mailCert, key: layout.mailKey },
    dkim: { port: o.ports.dkim, dir: layout.opendkimKeysDir },
    rspamd: installRspamdOptions(o, config),
    logs,
    // Under --root the daemons keep their queue, run directory and logs below it too.
    paths: onHost
      ? undefined
      : {
          postfixQueue: path.join(layout.root, 'var/spool/postfix'),
          postfixData: path.join(layout.root, 'var/lib/postfix'),
          postfixLog: logs.postfix,
          dovecotBase: path.join(layout.root, 'run/dovecot'),
          dovecotLog: logs.dovecot,
          opendkimPid: path.join(layout.root, 'run/opendkim/opendkim.pid'),
        },
  };
  return mailConfigFiles(options, layout.dovecotDir);
}

/** The operator's certificate, parsed once, and how atrium-tls-sync finds the mail host's. */
export function mailTls(o: InstallOptions, layout: HostLayout) {
  const certificate = operatorCertificate(o.tls?.cert);
  const coversMailHost = covers(certificate, o.mailHost);
  return {
    certificate,
    coversMailHost,
    syncArgs: tlsSyncArgs(layout, { mailHost: o.mailHost, tls: o.tls, coversMailHost }),
  };
}
