import { IMAPS_PORT } from '../../devices/device-endpoints.ts';
import { MASTER_SEPARATOR, MASTER_USER } from './mail-master-user.ts';
import { HEADER } from './config-header.ts';
import type { MailConfigOptions } from './mail-config.ts';
import { JUNK_MAILBOX } from './sieve-scripts.ts';

// Dovecot's dovecot.conf and the files it includes (mail-config.ts gathers every daemon's files).

const NO_AUTH_PENALTY = `auth_failure_delay = 0
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
`;

export function dovecotConf(o: MailConfigOptions, dir: string): string {
  const p = o.paths;
  const listen = o.listen === 'all' ? '*' : o.listen;
  return `${HEADER}
protocols = imap lmtp sieve
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
  # Where the global Sieve script files spam (created on first use) and what clients show as Junk.
  mailbox ${JUNK_MAILBOX} {
    special_use = \\Junk
  }
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
  mail_plugins = $mail_plugins imap_quota${rspamdLearnOf(o, dir) ? ' imap_sieve' : ''}
}
protocol lmtp {
  postmaster_address = postmaster@${o.hostname}
  mail_plugins = $mail_plugins sieve
}
${sieveConf(o, dir)}# Postfix asks here at RCPT (check_policy_service) whether the mailbox has room: a full mailbox,
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

export function dovecotUserdb(o: MailConfigOptions): string {
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

export function dovecotOauth2(o: MailConfigOptions, appPasswords: boolean): string {
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

/** ManageSieve's port (RFC 5804; mailcow and Thunderbird's Sieve add-on use it too). */
export const MANAGESIEVE_PORT = 4190;

/** The global scripts' files, beside dovecot.conf (sieve-scripts.ts writes them). */
export const SIEVE_FILES = {
  junk: 'atrium-junk.sieve',
  learnSpam: 'atrium-learn-spam.sieve',
  learnHam: 'atrium-learn-ham.sieve',
  /** rspamd's controller password, for rspamc as the mail user (root:<mail user> 0640). */
  learnPassword: 'atrium-rspamd-learn.password',
};

/**
 * Where IMAPSieve's learning reaches rspamd: the stated controller, or with rspamd configured its
 * controller, with the password in a file of Dovecot's directory. Undefined: nothing is learned.
 */
export function rspamdLearnOf(o: MailConfigOptions, dir: string): MailConfigOptions['rspamdLearn'] {
  if (o.rspamdLearn) return o.rspamdLearn;
  if (!o.rspamd) return undefined;
  return {
    controller: `127.0.0.1:${o.rspamd.controllerPort}`,
    passwordFile: `${dir}/${SIEVE_FILES.learnPassword}`,
  };
}

/** The name of the out-of-office script Dovecot asks Atrium's dict for (priv/sieve/name/<name>). */
export const OUT_OF_OFFICE_SCRIPT = 'out-of-office';

/**
 * Pigeonhole (docs/mail.md, "Filters, Junk and Out of office"). At delivery (LMTP) three scripts
 * run in turn: the global Junk script, the user's out-of-office reply (from Atrium's dict, so a
 * change takes effect at the next message, with no file to write), then the user's own filters,
 * which ManageSieve (Roundcube, Thunderbird) keeps in the mail home, so backups of the mail store
 * keep them. Compiled global scripts go into the mail home too: the directory of the scripts is
 * root's, and Dovecot's delivery runs as the mail user.
 */
function sieveConf(o: MailConfigOptions, dir: string): string {
  const bin = ';bindir=~/.sieve-bin';
  const learn = rspamdLearnOf(o, dir);
  return `# ManageSieve for Roundcube (on loopback) and mail apps' Sieve add-ons: STARTTLS and the same
# sign-ins as IMAP (app passwords by PLAIN, Atrium's tokens by XOAUTH2 and OAUTHBEARER).
service managesieve-login {
  inet_listener sieve {
    port = ${o.ports.managesieve ?? MANAGESIEVE_PORT}
  }
}
${
  o.ports.relay !== undefined
    ? `# Out-of-office replies leave through Postfix's loopback relay, DKIM-signed like Atrium's own mail.
submission_host = 127.0.0.1:${o.ports.relay}
`
    : ''
}plugin {
  sieve = file:~/sieve;active=~/.dovecot.sieve
  sieve_before = file:${dir}/${SIEVE_FILES.junk}${bin}
  sieve_before2 = dict:proxy:${o.dictSocket}:atrium;name=${OUT_OF_OFFICE_SCRIPT}
  # Replies come from the user's address (signed by its domain's key), not from an empty sender.
  sieve_vacation_send_from_recipient = yes
${
  learn
    ? `  # Moving mail into or out of Junk teaches rspamd (IMAPSieve). Only these global scripts may pipe:
  # vnd.dovecot.pipe is a global extension, never one users' scripts can require.
  sieve_plugins = sieve_imapsieve sieve_extprograms
  sieve_global_extensions = +vnd.dovecot.pipe +vnd.dovecot.environment
  sieve_pipe_bin_dir = /usr/bin
  imapsieve_mailbox1_name = ${JUNK_MAILBOX}
  imapsieve_mailbox1_causes = COPY
  imapsieve_mailbox1_before = file:${dir}/${SIEVE_FILES.learnSpam}${bin}
  imapsieve_mailbox2_name = *
  imapsieve_mailbox2_from = ${JUNK_MAILBOX}
  imapsieve_mailbox2_causes = COPY
  imapsieve_mailbox2_before = file:${dir}/${SIEVE_FILES.learnHam}${bin}
`
    : ''
}}
`;
}
