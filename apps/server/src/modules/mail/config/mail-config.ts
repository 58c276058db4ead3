import type { MailClient } from '../mail-client.ts';
import { HEADER } from './config-header.ts';
import { masterPasswdFile } from './mail-master-user.ts';
import { dovecotConf, dovecotOauth2, dovecotUserdb, rspamdLearnOf, SIEVE_FILES } from './dovecot-config.ts';
import { postfixMain, postfixMaster } from './postfix-config.ts';
import { isRspamdSecretFile, rspamdConfigFiles, type RspamdOptions } from './rspamd-config.ts';
import { junkBeforeScript, learnScript } from './sieve-scripts.ts';

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
    /** Dovecot's ManageSieve (users' filters); default 4190, on `listen` like IMAP. */
    managesieve?: number;
  };
  /**
   * rspamd's controller (`host:port` on loopback), which Dovecot's IMAPSieve teaches when a user
   * moves mail into or out of Junk; `passwordFile`: its password, readable by the mail user.
   * Undefined: nothing is learned.
   */
  rspamdLearn?: { controller: string; passwordFile?: string };
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
   * rspamd as the milter of port 25 and submission (ahead of OpenDKIM): SPF, DKIM, DMARC, ARC,
   * spam scores, greylisting (rspamd-config.ts). Undefined: no spam or forgery checks.
   */
  rspamd?: RspamdOptions;
  /**
   * The password of Atrium's master user (mail-master-user.ts), derived from ATRIUM_SECRET; mail
   * migration writes into users' mailboxes with it. Undefined: no master user.
   */
  masterPassword?: string;
  /**
   * Atrium's policy service (MAIL_POLICY_ADDRESS), which submission asks at the end of each
   * message for the sending limits (issue 44); undefined: no limits.
   */
  policy?: { host: string; port: number };
  /** The secret part of rspamd's map URLs (derived from ATRIUM_SECRET); undefined: no policy maps. */
  rspamdMapToken?: string;
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
    /**
     * Tests only: clients on loopback may say which address they speak for (XCLIENT), so a test
     * sends as another server on the internet would and rspamd checks SPF and greylists it.
     */
    xclient?: boolean;
  };
}

/** Files only root may read: Dovecot's client secret, the master user's hash, rspamd's password. */
export const isSecretFile = (name: string) =>
  name.includes('oauth2') ||
  name.includes('master-users') ||
  isRspamdSecretFile(name) ||
  name.endsWith(SIEVE_FILES.learnPassword);

/** File name (relative to the output directory) → contents. */
export type MailConfigFiles = Record<string, string>;

export function mailConfigFiles(o: MailConfigOptions, dovecotDir: string): MailConfigFiles {
  return {
    'postfix/main.cf': postfixMain(o),
    'postfix/master.cf': postfixMaster(o),
    'dovecot/dovecot.conf': dovecotConf(o, dovecotDir),
    'dovecot/atrium-userdb.conf.ext': dovecotUserdb(o),
    'dovecot/atrium-oauth2-token.conf.ext': dovecotOauth2(o, false),
    'dovecot/atrium-oauth2-password.conf.ext': dovecotOauth2(o, true),
    [`dovecot/${SIEVE_FILES.junk}`]: junkBeforeScript(),
    ...sieveLearnFiles(o, dovecotDir),
    ...(o.masterPassword ? { 'dovecot/atrium-master-users': masterPasswdFile(o.masterPassword) } : {}),
    ...(o.dkim ? { 'opendkim/opendkim.conf': opendkimConf(o, o.dkim) } : {}),
    ...(o.rspamd ? rspamdConfigFiles(o, o.rspamd) : {}),
  };
}

/** IMAPSieve's learning scripts and, with rspamd configured here, its controller's password. */
function sieveLearnFiles(o: MailConfigOptions, dovecotDir: string): MailConfigFiles {
  const learn = rspamdLearnOf(o, dovecotDir);
  if (!learn) return {};
  return {
    [`dovecot/${SIEVE_FILES.learnSpam}`]: learnScript('spam', learn.controller, learn.passwordFile),
    [`dovecot/${SIEVE_FILES.learnHam}`]: learnScript('ham', learn.controller, learn.passwordFile),
    ...(o.rspamd && !o.rspamdLearn
      ? { [`dovecot/${SIEVE_FILES.learnPassword}`]: o.rspamd.controllerPassword }
      : {}),
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
