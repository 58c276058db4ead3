import { deriveKey } from '../../../lib/crypto.ts';
import { HEADER } from './config-header.ts';
import type { MailConfigFiles, MailConfigOptions } from './mail-config.ts';
import { rspamdPolicyFiles } from './rspamd-policy-config.ts';

// rspamd's files (Debian's rspamd 3.4 reads /etc/rspamd/rspamd.conf, which includes
// local.d/<name> merged over its defaults and override.d/<name> replacing them): inbound and
// outbound scoring as Postfix's milter, with SPF, DKIM, DMARC and ARC checks, greylisting and Bayes
// in Redis. docs/mail.md, "Spam and forgery protection", says what each file decides and why.
//
// Where rspamd reads each organisation's own settings (rspamd-policy-config.ts, merged last so a
// file of the same name there wins): rspamd.conf.override points the settings module at a map
// Atrium serves (per recipient domain: the Junk and reject thresholds of the spam sensitivity,
// GREYLIST_CHECK and GREYLIST_SAVE disabled where greylisting is off), local.d/multimap.conf holds
// the allow and block lists as maps, override.d/options.inc how often rspamd polls them. The files
// below set the host's defaults those settings start from and never name these files.

/** What an organisation without its own settings gets (rspamd's own defaults, named here). */
export const RSPAMD_THRESHOLDS = {
  /** At or over: the first message of an unknown sender, IP and recipient gets a 4xx. */
  greylist: 4,
  /** At or over: `X-Spam: Yes`, which Dovecot's Sieve files into the recipient's Junk. */
  addHeader: 6,
  /** At or over: refused at SMTP (554 5.7.1). */
  reject: 15,
} as const;

export interface RspamdOptions {
  /** The milter (rspamd's proxy worker, scanning itself): Postfix's port 25 and submission ask it. */
  port: number;
  /** The controller (web API): `/ping`, statistics, learning (`rspamc -h 127.0.0.1:<port> -P …`). */
  controllerPort: number;
  /** Greylisting and Bayes data (Debian's redis-server on 127.0.0.1:6379 on a host). */
  redis: { host: string; port: number };
  /** The controller's password for every command, learning included (rspamdControllerPassword). */
  controllerPassword: string;
  /** Resolvers as `host:port`; undefined: /etc/resolv.conf's (tests: the loopback DNS server). */
  dnsServers?: string[];
  /** Seconds a greylisted sender must wait before the retry is taken (default 300; tests: a few). */
  greylistDelay?: number;
  /**
   * Tests: where rspamd keeps its compiled regular expressions (hyperscan), shared between runs;
   * compiling them takes rspamd's start from seconds to a minute on a busy machine. Default: its
   * database directory (/var/lib/rspamd).
   */
  hyperscanCache?: string;
}

/**
 * The controller's password, derived from ATRIUM_SECRET as the other mail secrets are: the same on
 * every run of mail-config and install, so whatever learns (Dovecot's IMAPSieve script) derives it
 * too instead of reading rspamd's file.
 */
export const rspamdControllerPassword = (secret: string) =>
  deriveKey(secret, 'rspamd-controller').export().toString('base64url');

/** rspamd's files under `rspamd/` (local.d and override.d), the organisations' policy files merged in. */
export function rspamdConfigFiles(o: MailConfigOptions, r: RspamdOptions): MailConfigFiles {
  const file = (lines: string[]) => HEADER + lines.join('\n') + '\n';
  const files: MailConfigFiles = {
    'rspamd/local.d/worker-proxy.inc': file([
      `bind_socket = "127.0.0.1:${r.port}";`,
      'milter = yes;',
      // The proxy scans itself (its upstream "local", Debian's default, in self-scan mode): no
      // separate scanner worker, one listener fewer and less memory.
      'upstream "local" {',
      '  self_scan = yes;',
      '}',
      'timeout = 120s;',
      // "X-Spam: Yes" on a message over the add_header threshold: what Sieve files into Junk.
      'spam_header = "X-Spam";',
      'reject_message = "Message refused as spam";',
      'discard_on_reject = false;',
      'quarantine_on_reject = false;',
    ]),
    // The standalone scanner: off, the proxy scans (above).
    'rspamd/override.d/worker-normal.inc': file(['enabled = false;']),
    // override.d: Debian's defaults trust 127.0.0.1 and ::1 without a password (secure_ip) and
    // set the password "q1"; here every client, on loopback too, needs the derived password.
    'rspamd/override.d/worker-controller.inc': file([
      `bind_socket = "127.0.0.1:${r.controllerPort}";`,
      'count = 1;',
      `password = "${r.controllerPassword}";`,
      `enable_password = "${r.controllerPassword}";`,
      'secure_ip = null;',
      'static_dir = "${WWWDIR}";',
    ]),
    'rspamd/local.d/options.inc': file([
      ...(r.dnsServers
        ? [`dns {`, `  nameserver = [${r.dnsServers.map((s) => `"${s}"`).join(', ')}];`, `}`]
        : ['# rspamd asks the resolvers of /etc/resolv.conf (docs/mail.md: a local caching resolver).']),
      ...(r.hyperscanCache ? [`hs_cache_dir = "${r.hyperscanCache}";`] : []),
    ]),
    'rspamd/local.d/redis.conf': file([`servers = "${r.redis.host}:${r.redis.port}";`]),
    'rspamd/local.d/actions.conf': file([
      `reject = ${RSPAMD_THRESHOLDS.reject};`,
      `add_header = ${RSPAMD_THRESHOLDS.addHeader};`,
      `greylist = ${RSPAMD_THRESHOLDS.greylist};`,
    ]),
    'rspamd/local.d/milter_headers.conf': file([
      // Authentication-Results (SPF, DKIM, DMARC, ARC) and the score on mail from other servers;
      // copies of these headers the sender wrote are removed first (a forged "dkim=pass").
      'use = ["authentication-results", "x-spam-status", "x-spamd-result"];',
      // Outbound mail (signed-in users) and Atrium's own leave without them: nothing to tell.
      'skip_authenticated = true;',
      'skip_local = true;',
      // An "X-Spam" the sender wrote is removed, so only rspamd's decides Junk.
      'remove_upstream_spam_flag = true;',
    ]),
    // A message failing DMARC is refused when its domain publishes p=reject, goes to Junk when it
    // publishes p=quarantine (RFC 7489 §6.3).
    'rspamd/local.d/dmarc.conf': file([
      'actions {',
      '  reject = "reject";',
      '  quarantine = "add_header";',
      '}',
    ]),
    'rspamd/local.d/greylist.conf': file([
      // Greylisting: a first message (sender, recipient, the client's /19) scoring at or over the
      // greylist threshold gets "451 4.7.1 Try again later"; a retry after the delay is taken
      // and the triplet is known for a day. Organisations that turned it off: settings.conf
      // (rspamd-policy-config.ts) disables GREYLIST_CHECK and GREYLIST_SAVE for their domains.
      `timeout = ${r.greylistDelay ?? 300};`,
      'expire = 1d;',
    ]),
    // OpenDKIM signs (docs/mail.md, "DKIM signing"): rspamd checks signatures, never makes them.
    'rspamd/local.d/dkim_signing.conf': file(['enabled = false;']),
    // ARC: checked on arrival (ARC_ALLOW, ARC_REJECT); no sealing at the last hop.
    'rspamd/local.d/arc.conf': file([
      'sign_inbound = false;',
      'sign_local = false;',
      'sign_authenticated = false;',
    ]),
  };
  return { ...files, ...rspamdPolicyFiles(o) };
}

/** The controller password's file holds a secret: only root and rspamd's user may read it. */
export const isRspamdSecretFile = (name: string) => name.endsWith('worker-controller.inc');
