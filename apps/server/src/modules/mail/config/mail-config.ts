import { POSTFIX_MAPS } from '../lookups/postfix-maps.ts';
import type { MailClient } from '../mail-client.ts';
import { MASTER_SEPARATOR, MASTER_USER, masterPasswdFile } from './mail-master-user.ts';
import { IMAPS_PORT } from '../../devices/device-endpoints.ts';

/**
 * The Postfix and Dovecot configuration of this deployment (`npm run atrium -- mail-config`).
 * The operator's files and the tests' come from here alike; tests add `paths` so both daemons
 * keep everything (queue, sockets, logs) in a directory of their own.
 */
export interface MailConfigOptions {
  /** Postfix's myhostname: the MX target (MAIL_HOST). */
  hostname: string;
  /** Where Dovecot reaches Atrium over HTTP, e.g. http://127.0.0.1:8080 (its own host). */
  atriumUrl: string;
  /** MAIL_SOCKETMAP_ADDRESS and MAIL_DICT_SOCKET of the Atrium process. */
  socketmap: { host: string; port: number };
  dictSocket: string;
  /** Dovecot's client of Atrium's provider (introspection, app-password grants). */
  client: MailClient;
  /** Where the public services listen: an address, or `all`. LMTP and SASL stay on loopback. */
  listen: string;
  ports: {
    smtp: number;
    submission: number;
    imap: number;
    lmtp: number;
    auth: number;
    /**
     * An installed host's SASL relay (the supervisor's, in front of `auth`): Postfix asks there, and
     * a sign-in Atrium cannot check (it is restarting) is answered 454, not 535. Undefined: Postfix
     * asks Dovecot directly.
     */
    sasl?: number;
    /** Dovecot's quota-status policy service, which Postfix asks at RCPT (loopback only). */
    quotaStatus: number;
    /**
     * Atrium's own mail (sign-in codes, invitations): a Postfix listener on loopback only that
     * relays for this host's processes without a sign-in and DKIM-signs like submission (SMTP_URL
     * of an installed host). Undefined: none.
     */
    relay?: number;
    /** With a certificate: IMAP and submission with TLS from the first byte (default 993, 465). */
    imaps?: number;
    submissions?: number;
  };
  /** Mailboxes live under `<mailRoot>/<organisation id>/<user id>`, owned by `mailUser`. */
  mailRoot: string;
  mailUser: string;
  /**
   * Certificate and key for MAIL_HOST: STARTTLS on 25, 587 and 143, implicit TLS on 465 and 993,
   * sign-in only over TLS (loopback aside, for Dovecot). Without them TLS is off (loopback only).
   */
  tls?: { cert: string; key: string };
  /**
   * DKIM signing by OpenDKIM (a milter on loopback `port`) with the tables in `dir`
   * (MAIL_DKIM_OPENDKIM_DIR: deploy/atrium-dkim-sync's copies of what Atrium writes into
   * MAIL_DKIM_DIR); undefined: no signer, submission hands mail on unsigned.
   */
  dkim?: { port: number; dir: string };
  /**
   * The password of Atrium's master user (mail-master-user.ts), derived from ATRIUM_SECRET; mail
   * migration writes into users' mailboxes with it. Undefined: no master user.
   */
  masterPassword?: string;
  /** Tests: refused sign-ins answer at once (no failure delay, no growing per-address penalty). */
  noAuthPenalty?: boolean;
  /**
   * Log files of an installed host: Postfix (maillog_file, through its postlogd service) and
   * Dovecot (log_path) write there themselves, with or without a syslog daemon (docs/mail.md).
   */
  logs?: { postfix: string; dovecot: string };
  /** Tests: a private Postfix queue and Dovecot run directory, and log files to read. */
  paths?: {
    postfixQueue: string;
    postfixData: string;
    postfixLog: string;
    dovecotBase: string;
    dovecotLog: string;
    /** OpenDKIM's pid file (it runs in the foreground, started as root). */
    opendkimPid?: string;
  };
}

/** Files only root may read: Dovecot's client secret and the master user's hash. */
export const isSecretFile = (name: string) => name.includes('oauth2') || name.includes('master-users');

/** File name (relative to the output directory) → contents. */
export type MailConfigFiles = Record<string, string>;

const HEADER = '# Written by `npm run atrium -- mail-config`; run it again rather than editing.\n';

export function mailConfigFiles(o: MailConfigOptions, dovecotDir: string): MailConfigFiles {
  return {
    'postfix/main.cf': postfixMain(o),
    'postfix/master.cf': postfixMaster(o),
    'dovecot/dovecot.conf': dovecotConf(o, dovecotDir),
    'dovecot/atrium-userdb.conf.ext': dovecotUserdb(o),
    'dovecot/atrium-oauth2-token.conf.ext': dovecotOauth2(o, false),
    'dovecot/atrium-oauth2-password.conf.ext': dovecotOauth2(o, true),
    ...(o.masterPassword ? { 'dovecot/atrium-master-users': masterPasswdFile(o.masterPassword) } : {}),
    ...(o.dkim ? { 'opendkim/opendkim.conf': opendkimConf(o, o.dkim) } : {}),
  };
}

/**
 * OpenDKIM as a signer only (Mode s) for what submission hands it. The key is chosen by the
 * envelope sender (SenderMacro), which Postfix has checked belongs to the signed-in user, not by
 * the From: header, which the user writes: so nobody gets a signature for another
 * organisation's domain by writing its address in From:. Atrium rewrites the tables; a reload
 * (SIGUSR1, `systemctl reload opendkim`) makes OpenDKIM read them again (docs/mail.md).
 */
function opendkimConf(o: MailConfigOptions, dkim: { port: number; dir: string }): string {
  const lines = [
    HEADER,
    'Mode s',
    `Socket inet:${dkim.port}@127.0.0.1`,
    `KeyTable file:${dkim.dir}/KeyTable`,
    `SigningTable file:${dkim.dir}/SigningTable`,
    'SenderMacro {mail_addr}',
    'Canonicalization relaxed/simple',
    'SignatureAlgorithm rsa-sha256',
    // A From: added after signing would break the signature rather than pass as signed.
    'OversignHeaders From',
    'UMask 007',
  ];
  // Started as root, OpenDKIM drops to its own user; RequireSafeKeys stays on (its default), so the
  // keys must be in directories only root or opendkim may write: the copies atrium-dkim-sync makes.
  lines.push('UserID opendkim', 'Syslog yes');
  if (o.paths) {
    // Tests: in the foreground, with a pid file of their own.
    lines.push(`PidFile ${o.paths.opendkimPid ?? '/run/opendkim/opendkim.pid'}`, 'Background no');
  } else {
    // Debian's opendkim.service waits for this pid file; atrium-dkim-sync signals it without systemd.
    lines.push('PidFile /run/opendkim/opendkim.pid', 'SyslogSuccess yes');
  }
  return lines.join('\n') + '\n';
}

function postfixMain(o: MailConfigOptions): string {
  const map = (name: string) => `socketmap:inet:${o.socketmap.host}:${o.socketmap.port}:${name}`;
  const lines = [
    HEADER,
    'compatibility_level = 3.6',
    `myhostname = ${o.hostname}`,
    // Every domain is a virtual mailbox domain answered by Atrium; nothing is delivered locally.
    'mydestination =',
    'local_recipient_maps =',
    `inet_interfaces = ${o.listen === 'all' ? 'all' : o.listen}`,
    `virtual_mailbox_domains = ${map(POSTFIX_MAPS.domains)}`,
    `virtual_mailbox_maps = ${map(POSTFIX_MAPS.mailboxes)}`,
    // Aliases, group addresses and catch-alls; every mailbox answers itself there (docs/mail.md).
    `virtual_alias_maps = ${map(POSTFIX_MAPS.aliases)}`,
    // Every domain is a mailbox domain; without this Postfix would also ask the alias map for
    // each bare domain name (its default is $virtual_alias_maps).
    'virtual_alias_domains =',
    `virtual_transport = lmtp:inet:127.0.0.1:${o.ports.lmtp}`,
    `smtpd_sender_login_maps = ${map(POSTFIX_MAPS.senderLogins)}`,
    // An unknown recipient is refused at RCPT time, never accepted and bounced later.
    'smtpd_reject_unlisted_recipient = yes',
    // A full mailbox is refused at RCPT too: Dovecot's quota-status answers Postfix's policy
    // request from the same userdb and quota as delivery (552 5.2.2), so no mail is accepted
    // and then bounced to a sender who may not have sent it (backscatter).
    `smtpd_recipient_restrictions = reject_unlisted_recipient, check_policy_service inet:127.0.0.1:${o.ports.quotaStatus}`,
    'smtpd_relay_restrictions = permit_sasl_authenticated, reject_unauth_destination',
    // Submission signs in through Dovecot (app passwords, OAuth tokens): one place decides.
    'smtpd_sasl_type = dovecot',
    `smtpd_sasl_path = inet:127.0.0.1:${o.ports.sasl ?? o.ports.auth}`,
    'biff = no',
    'append_dot_mydomain = no',
  ];
  if (o.tls) {
    lines.push(`smtpd_tls_cert_file = ${o.tls.cert}`, `smtpd_tls_key_file = ${o.tls.key}`);
    // Port 25 offers STARTTLS to other servers and takes mail without it (RFC 3207).
    lines.push('smtpd_tls_security_level = may', 'smtpd_tls_mandatory_protocols = >=TLSv1.2');
    lines.push('smtpd_tls_protocols = >=TLSv1.2');
  }
  if (o.logs && !o.paths) {
    // A file rather than syslog, always: Debian 12 hosts without systemd often run no syslog
    // daemon, and then Postfix logged nowhere (issue 40). postlogd (master.cf) writes it.
    lines.push(`maillog_file = ${o.logs.postfix}`);
  }
  if (o.paths) {
    lines.push(
      `queue_directory = ${o.paths.postfixQueue}`,
      `data_directory = ${o.paths.postfixData}`,
      `maillog_file = ${o.paths.postfixLog}`,
      `maillog_file_prefixes = ${o.paths.postfixLog.slice(0, o.paths.postfixLog.lastIndexOf('/'))}`,
      'inet_protocols = ipv4',
      'smtpd_peername_lookup = no',
    );
  }
  return lines.join('\n') + '\n';
}

function postfixMaster(o: MailConfigOptions): string {
  const at = (port: number) => (o.listen === 'all' ? String(port) : `${o.listen}:${port}`);
  const tls = o.tls ? 'encrypt' : 'none';
  // What submission (587) and submissions (465) share: sign-in, then only as one's own addresses.
  const signedIn = [
    '  -o smtpd_sasl_auth_enable=yes',
    '  -o smtpd_client_restrictions=permit_sasl_authenticated,reject',
    // A signed-in user sends only as an address they own (smtpd_sender_login_maps).
    '  -o smtpd_sender_restrictions=reject_sender_login_mismatch',
    '  -o smtpd_relay_restrictions=permit_sasl_authenticated,reject',
    ...(o.dkim
      ? [
          `  -o smtpd_milters=inet:127.0.0.1:${o.dkim.port}`,
          // Signer away: the client is told to try again later rather than mail leaving unsigned.
          '  -o milter_default_action=tempfail',
        ]
      : []),
  ];
  const services = [
    `${at(o.ports.smtp)} inet n - n - - smtpd`,
    `${at(o.ports.submission)} inet n - n - - smtpd`,
    '  -o syslog_name=postfix/submission',
    `  -o smtpd_tls_security_level=${tls}`,
    `  -o smtpd_tls_auth_only=${o.tls ? 'yes' : 'no'}`,
    ...signedIn,
    ...(o.tls
      ? [
          // Implicit TLS (RFC 8314), which phones and Outlook prefer.
          `${at(o.ports.submissions ?? 465)} inet n - n - - smtpd`,
          '  -o syslog_name=postfix/submissions',
          '  -o smtpd_tls_wrappermode=yes',
          '  -o smtpd_tls_security_level=encrypt',
          ...signedIn,
        ]
      : []),
    ...(o.ports.relay !== undefined
      ? [
          // Atrium's own mail, from this host only: relayed without a sign-in, signed like submission.
          `127.0.0.1:${o.ports.relay} inet n - n - - smtpd`,
          '  -o syslog_name=postfix/atrium',
          '  -o mynetworks=127.0.0.0/8',
          '  -o smtpd_client_restrictions=permit_mynetworks,reject',
          '  -o smtpd_relay_restrictions=permit_mynetworks,reject',
          ...(o.dkim
            ? [`  -o smtpd_milters=inet:127.0.0.1:${o.dkim.port}`, '  -o milter_default_action=tempfail']
            : []),
        ]
      : []),
    'pickup unix n - n 60 1 pickup',
    'cleanup unix n - n - 0 cleanup',
    'qmgr unix n - n 300 1 qmgr',
    'tlsmgr unix - - n 1000? 1 tlsmgr',
    'rewrite unix - - n - - trivial-rewrite',
    'bounce unix - - n - 0 bounce',
    'defer unix - - n - 0 bounce',
    'trace unix - - n - 0 bounce',
    'verify unix - - n - 1 verify',
    'flush unix n - n 1000? 0 flush',
    'proxymap unix - - n - - proxymap',
    'proxywrite unix - - n - 1 proxymap',
    'smtp unix - - n - - smtp',
    'relay unix - - n - - smtp',
    'showq unix n - n - - showq',
    'error unix - - n - - error',
    'retry unix - - n - - error',
    'discard unix - - n - - discard',
    'local unix - n n - - local',
    'virtual unix - n n - - virtual',
    'lmtp unix - - n - - lmtp',
    'anvil unix - - n - 1 anvil',
    'scache unix - - n - 1 scache',
    'postlog unix-dgram n - n - 1 postlogd',
  ];
  return HEADER + services.join('\n') + '\n';
}

const NO_AUTH_PENALTY = `auth_failure_delay = 0
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
`;

function dovecotConf(o: MailConfigOptions, dir: string): string {
  const p = o.paths;
  const listen = o.listen === 'all' ? '*' : o.listen;
  return `${HEADER}
protocols = imap lmtp
listen = ${listen}
${p ? `base_dir = ${p.dovecotBase}\nstate_dir = ${p.dovecotBase}/state\nlog_path = ${p.dovecotLog}\ninstance_name = atrium-test\n` : ''}${o.logs && !p ? `# A file rather than syslog, always (docs/mail.md); info_log_path follows log_path.\nlog_path = ${o.logs.dovecot}\n` : ''}
${o.tls ? `ssl = required\nssl_cert = <${o.tls.cert}\nssl_key = <${o.tls.key}\nssl_min_protocol = TLSv1.2` : 'ssl = no'}
# OAUTHBEARER and XOAUTH2 take access tokens from Atrium's provider; PLAIN and LOGIN take app
# passwords. Plain text needs TLS, except on loopback.
disable_plaintext_auth = yes
auth_mechanisms = plain login oauthbearer xoauth2
auth_username_format = %Lu

# Access tokens, checked by introspection at Atrium's provider.
passdb {
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = ${dir}/atrium-oauth2-token.conf.ext
}
# App passwords, checked by Atrium through an OAuth 2.0 password grant (app passwords only).
passdb {
  driver = oauth2
  mechanisms = plain login
  args = ${dir}/atrium-oauth2-password.conf.ext
}
${
  o.masterPassword
    ? `# Atrium's own master user (mail migration): "user@domain*${MASTER_USER}" opens that user's
# mailbox; the user must still exist in the userdb.
auth_master_user_separator = ${MASTER_SEPARATOR}
passdb {
  driver = passwd-file
  master = yes
  args = scheme=SHA512 ${dir}/atrium-master-users
}
`
    : ''
}# Home and quota from Atrium over the dict protocol; suspended users get mail, not IMAP.
userdb {
  driver = dict
  args = ${dir}/atrium-userdb.conf.ext
}

mail_location = maildir:~/Maildir
mail_home = ${o.mailRoot}/%{userdb:organization}/%{userdb:mailbox}
mail_uid = ${o.mailUser}
mail_gid = ${o.mailUser}
first_valid_uid = 1
first_valid_gid = 1
# quota_clone writes each mailbox's usage to Atrium (the dict socket) whenever it changes.
mail_plugins = $mail_plugins quota quota_clone
namespace inbox {
  inbox = yes
}

service imap-login {
  inet_listener imap {
    port = ${o.ports.imap}
  }
  # With a certificate, also IMAP with TLS from the first byte, where devices are told to connect
  # (modules/devices/device-endpoints.ts, _imaps._tcp); without one, IMAP stays on loopback only.
  inet_listener imaps {
    port = ${o.tls ? (o.ports.imaps ?? IMAPS_PORT) : 0}
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = ${o.ports.lmtp}
  }
}
# Postfix's SASL (submission) asks here.
service auth {
  inet_listener {
    address = 127.0.0.1
    port = ${o.ports.auth}
  }
}

${o.noAuthPenalty ? NO_AUTH_PENALTY : ''}
protocol imap {
  mail_plugins = $mail_plugins imap_quota
}
protocol lmtp {
  postmaster_address = postmaster@${o.hostname}
}
# Postfix asks here at RCPT (check_policy_service) whether the mailbox has room: a full mailbox,
# or one without room for the size the client declared (SMTP SIZE), is refused before the mail
# is accepted. The answer comes from the same userdb lookup and quota as delivery.
service quota-status {
  executable = quota-status -p postfix
  inet_listener {
    address = 127.0.0.1
    port = ${o.ports.quotaStatus}
  }
  client_limit = 1
}
# LMTP checks again: a full mailbox refuses at LMTP's RCPT; a message larger than what is left
# (its size unknown at RCPT) is refused by LMTP and Postfix bounces it.
lmtp_rcpt_check_quota = yes
plugin {
  quota = maildir:User quota
  quota_exceeded_message = The mailbox is full
  quota_status_success = DUNNO
  # Not a mailbox (an alias, a group address): Postfix goes on, and delivery checks each mailbox.
  quota_status_nouser = DUNNO
  quota_status_overquota = "552 5.2.2 Mailbox is full"
  # Mail Settings shows each mailbox's usage from these writes (priv/quota/storage and /messages).
  quota_clone_dict = proxy:${o.dictSocket}:atrium
}
`;
}

function dovecotUserdb(o: MailConfigOptions): string {
  return `${HEADER}
uri = proxy:${o.dictSocket}:atrium
iterate_disable = yes
# %s: the service asking (imap, lmtp, …), so a suspended user's mailbox takes mail but refuses IMAP.
key userdb {
  key = userdb/%s/%u
  format = json
}
# Atrium answers quota_rule itself; organization and mailbox make the home (mail_home).
# (userdb_fields with %{dict:…} crash Dovecot 2.3.19's auth worker, so the object is used whole.)
userdb_objects = userdb
`;
}

function dovecotOauth2(o: MailConfigOptions, appPasswords: boolean): string {
  const base = o.atriumUrl.replace(/\/$/, '');
  // Idle connections to Atrium are dropped after a second rather than kept for a minute: a server
  // handing over to a new release (plugins/handover.ts) then never closes one that is reused.
  const keepAlive = 'max_idle_time_msecs = 1000\n';
  const credentials = `${encodeURIComponent(o.client.clientId)}:${encodeURIComponent(o.client.clientSecret)}`;
  if (appPasswords) {
    return `${HEADER}
grant_url = ${base}/api/mail/password-grant
client_id = ${o.client.clientId}
client_secret = ${o.client.clientSecret}
use_grant_password = yes
${keepAlive}# X-Dovecot-Auth-Remote: the mail client's address (%{rip}), so Atrium counts a client's wrong
# app passwords against that client rather than against Dovecot's own address.
send_auth_headers = yes
username_attribute = email
`;
  }
  const url = new URL('/oidc/token/introspection', base);
  return `${HEADER}
introspection_mode = post
introspection_url = ${url.protocol}//${credentials}@${url.host}${url.pathname}
force_introspection = yes
username_attribute = email
active_attribute = active
active_value = true
${keepAlive}`;
}
