import { POSTFIX_MAPS } from '../lookups/postfix-maps.ts';
import { INBOUND_MAP } from '../lookups/inbound-mail.ts';
import { HEADER } from './config-header.ts';
import type { MailConfigOptions } from './mail-config.ts';

// Postfix's main.cf and master.cf (mail-config.ts gathers every daemon's files).

/** Postfix's own services (Debian's master.cf), the same on every host. */
export const POSTFIX_INTERNAL_SERVICES = [
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

const socketmap = (o: MailConfigOptions, name: string) =>
  `socketmap:inet:${o.socketmap.host}:${o.socketmap.port}:${name}`;

/** Every smtpd's recipient checks (main.cf), and port 25's with its `extra` after them (master.cf). */
const recipientRestrictions = (o: MailConfigOptions, extra: string[] = []) => [
  'reject_unlisted_recipient',
  `check_policy_service inet:127.0.0.1:${o.ports.quotaStatus}`,
  ...extra,
];

export function postfixMain(o: MailConfigOptions): string {
  const map = (name: string) => socketmap(o, name);
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
    `smtpd_recipient_restrictions = ${recipientRestrictions(o).join(', ')}`,
    'smtpd_relay_restrictions = permit_sasl_authenticated, reject_unauth_destination',
    // Submission signs in through Dovecot (app passwords, OAuth tokens): one place decides.
    'smtpd_sasl_type = dovecot',
    `smtpd_sasl_path = inet:127.0.0.1:${o.ports.sasl ?? o.ports.auth}`,
    ...(o.policy
      ? [
          // Atrium's policy service; if Atrium does not answer, mail goes on (a limit is a brake).
          `atrium_sending_limits = check_policy_service { inet:${o.policy.host}:${o.policy.port}, default_action=DUNNO }`,
        ]
      : []),
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
    // Tests only: a client on loopback speaks for another server's address (XCLIENT).
    if (o.paths.xclient) lines.push('smtpd_authorized_xclient_hosts = 127.0.0.0/8');
  }
  return lines.join('\n') + '\n';
}

/**
 * A service's milters, in order. A milter that does not answer (rspamd or OpenDKIM stopped)
 * defers the message with a 4xx, on port 25 as on submission: the sender's server or mail client
 * tries again, and nothing is taken unchecked or leaves unsigned (docs/mail.md).
 */
function milters(ports: Array<number | undefined>): string[] {
  const on = ports.filter((port): port is number => port !== undefined);
  if (on.length === 0) return [];
  return [
    `  -o smtpd_milters=${on.map((port) => `inet:127.0.0.1:${port}`).join(',')}`,
    '  -o milter_default_action=tempfail',
  ];
}

export function postfixMaster(o: MailConfigOptions): string {
  const at = (port: number) => (o.listen === 'all' ? String(port) : `${o.listen}:${port}`);
  const tls = o.tls ? 'encrypt' : 'none';
  // What submission (587) and submissions (465) share: sign-in, then only as one's own addresses.
  const signedIn = [
    '  -o smtpd_sasl_auth_enable=yes',
    '  -o smtpd_client_restrictions=permit_sasl_authenticated,reject',
    // A signed-in user sends only as an address they own (smtpd_sender_login_maps).
    '  -o smtpd_sender_restrictions=reject_sender_login_mismatch',
    '  -o smtpd_relay_restrictions=permit_sasl_authenticated,reject',
    // Sending limits (issue 44): Atrium is asked once per message, when its recipient count is known.
    ...(o.policy ? ['  -o smtpd_end_of_data_restrictions=$atrium_sending_limits'] : []),
    // rspamd scores outbound mail first (GTUBE or a spam score over reject is refused), then
    // OpenDKIM signs what rspamd let through.
    ...milters([o.rspamd?.port, o.dkim?.port]),
  ];
  const services = [
    `${at(o.ports.smtp)} inet n - n - - smtpd`,
    // Mail from other servers only: once every check accepted a recipient, Atrium is told (it
    // answers DUNNO, changing nothing), and its first tells the setup checklist mail is flowing.
    `  -o smtpd_recipient_restrictions=${recipientRestrictions(o, [
      `check_recipient_access ${socketmap(o, INBOUND_MAP)}`,
    ])
      .join(',')
      .replaceAll(' ', ',')}`,
    // rspamd checks SPF, DKIM, DMARC and ARC, scores and greylists mail from other servers.
    ...milters([o.rspamd?.port]),
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
          ...milters([o.dkim?.port]),
        ]
      : []),
    ...POSTFIX_INTERNAL_SERVICES,
  ];
  return HEADER + services.join('\n') + '\n';
}
