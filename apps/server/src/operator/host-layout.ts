import path from 'node:path';

/**
 * Where `install` puts everything on a host, and where `doctor` and `update` look. Every path is
 * below `root` (`/` on a real host; a temporary directory with `--root DIR` in tests), so one
 * value decides whether a command touches the host or only DIR.
 */
export interface HostLayout {
  root: string;
  /** Releases: `<releases>/<id>` each a deployed checkout; `current` links to the serving one. */
  releases: string;
  current: string;
  /** The settings file (environment of the service): root:atrium 0640. */
  settingsFile: string;
  settingsDir: string;
  /** /var/lib/atrium: the service user's home, 0750 atrium. */
  stateDir: string;
  /** DATA_DIR (the embedded database), 0700 atrium. */
  dataDir: string;
  /** MAIL_DKIM_DIR: where Atrium writes OpenDKIM's tables and keys (0700 atrium). */
  dkimDir: string;
  /** Where OpenDKIM reads the copies that atrium-dkim-sync makes (0700 opendkim). */
  opendkimKeysDir: string;
  /** Per-host Roundcube configuration Atrium writes (2750 atrium:www-data). */
  webmailConfigDir: string;
  /** Backups (issue 32) and anything else the operator keeps beside the data. */
  backupDir: string;
  /** /run/atrium: the dict socket; made by systemd (RuntimeDirectory) or the init script. */
  runDir: string;
  dictSocket: string;
  /** What the supervisor (supervisor/supervisor.ts) reports after each start and replacement. */
  supervisorStatus: string;
  mailRoot: string;
  systemdDir: string;
  initDir: string;
  cronDir: string;
  postfixDir: string;
  dovecotDir: string;
  opendkimConf: string;
  opendkimDefaults: string;
  caddyfile: string;
  roundcubeDir: string;
  phpFpmPoolDir: string;
  /** Radicale's configuration file (Debian's radicale reads it). */
  radicaleConfig: string;
  /** Its rights file, which the configuration names. */
  radicaleRights: string;
  /** Radicale's storage (calendars and address books), the radicale user's (0750). */
  radicaleStorage: string;
  /** Log of what install, update and the sync changed. */
  logDir: string;
  /** Postfix's and Dovecot's log files (root's: the daemons write them as root). */
  mailLogDir: string;
  /** Where install's logrotate file goes (Debian's logrotate reads the directory daily). */
  logrotateDir: string;
  /**
   * The certificate and key Postfix and Dovecot serve for MAIL_HOST (root's, key 0600): copies
   * that deploy/atrium-tls-sync makes of Caddy's certificate or the operator's file.
   */
  mailTlsDir: string;
  mailCert: string;
  mailKey: string;
  /** Caddy's storage on Debian (user caddy, HOME /var/lib/caddy): certificates and its local CA. */
  caddyDataDir: string;
  /** Caddy's log file (the Caddyfile's global `log`), with or without systemd. */
  caddyLog: string;
}

/** Mail settings install gives every host (loopback listeners of the Atrium process). */
export const SOCKETMAP_ADDRESS = '127.0.0.1:10027';
/** Atrium's HTTP port on loopback; Caddy is the only public listener. */
export const ATRIUM_PORT = 8080;
export const SERVICE_USER = 'atrium';
export const MAIL_USER = 'vmail';

export function hostLayout(root = '/'): HostLayout {
  const at = (p: string) => path.join(root, p);
  return {
    root,
    releases: at('/opt/atrium/releases'),
    current: at('/opt/atrium/current'),
    settingsDir: at('/etc/atrium'),
    settingsFile: at('/etc/atrium/atrium.env'),
    stateDir: at('/var/lib/atrium'),
    dataDir: at('/var/lib/atrium/data'),
    dkimDir: at('/var/lib/atrium/dkim'),
    opendkimKeysDir: at('/etc/opendkim/atrium'),
    webmailConfigDir: at('/var/lib/atrium/webmail'),
    backupDir: at('/var/backups/atrium'),
    runDir: at('/run/atrium'),
    dictSocket: at('/run/atrium/dict.sock'),
    supervisorStatus: at('/run/atrium/supervisor.json'),
    mailRoot: at('/var/vmail'),
    systemdDir: at('/etc/systemd/system'),
    initDir: at('/etc/init.d'),
    cronDir: at('/etc/cron.d'),
    postfixDir: at('/etc/postfix'),
    dovecotDir: at('/etc/dovecot'),
    opendkimConf: at('/etc/opendkim.conf'),
    opendkimDefaults: at('/etc/default/opendkim'),
    caddyfile: at('/etc/caddy/Caddyfile'),
    roundcubeDir: at('/etc/roundcube'),
    phpFpmPoolDir: at('/etc/php/8.2/fpm/pool.d'),
    radicaleConfig: at('/etc/radicale/config'),
    radicaleRights: at('/etc/radicale/atrium-rights'),
    radicaleStorage: at('/var/lib/radicale/collections'),
    logDir: at('/var/log/atrium'),
    mailLogDir: at('/var/log/atrium-mail'),
    logrotateDir: at('/etc/logrotate.d'),
    mailTlsDir: at('/etc/atrium/tls'),
    mailCert: at('/etc/atrium/tls/mail.crt'),
    mailKey: at('/etc/atrium/tls/mail.key'),
    caddyDataDir: at('/var/lib/caddy/.local/share/caddy'),
    caddyLog: at('/var/log/caddy/caddy.log'),
  };
}
