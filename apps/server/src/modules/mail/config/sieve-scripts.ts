// The Sieve scripts Atrium gives Dovecot's Pigeonhole (docs/mail.md, "Filters, Junk and Out of
// office"): the global scripts mail-config writes beside dovecot.conf, and each user's out-of-office
// script, which Dovecot reads from Atrium's dict socket at every delivery.

/** The special-use folder spam goes to; dovecot.conf declares it `\Junk`. */
export const JUNK_MAILBOX = 'Junk';

/** Days before the same sender is answered again (Sieve vacation :days; Google Workspace's is 4). */
export const OUT_OF_OFFICE_DAYS = 4;

/**
 * Senders an out-of-office reply never goes to, by local part: machines that read no replies.
 * Pigeonhole already skips `Precedence: bulk/list/junk`, `List-*`, `Auto-Submitted` and
 * MAILER-DAEMON/owner-* envelope senders (RFC 5230 §4.5); these are the rest a person would expect.
 */
export const NO_REPLY_LOCAL_PARTS = [
  'noreply*',
  'no-reply*',
  'no_reply*',
  'donotreply*',
  'do-not-reply*',
  'do_not_reply*',
  'mailer-daemon',
  'postmaster',
  'bounce*',
  'bounces*',
];

/** A Sieve quoted string (RFC 5228 §2.4.2: only `"` and `\` are escaped; line breaks are kept). */
export function sieveString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

const list = (values: string[]) => `[${values.map(sieveString).join(', ')}]`;

/**
 * Run before everything else at delivery (sieve_before): a message rspamd marked as spam
 * (`X-Spam: Yes`, over the organisation's Junk threshold) is filed into Junk, created when missing,
 * and nothing after it runs: neither the user's filters nor their out-of-office reply.
 * The only place that decides Junk filing.
 */
export function junkBeforeScript(): string {
  return `# Written by Atrium's mail-config. Files rspamd's spam into Junk (docs/mail.md).
require ["fileinto", "mailbox"];
if header :is "X-Spam" "Yes" {
  fileinto :create ${sieveString(JUNK_MAILBOX)};
  stop;
}
`;
}

/**
 * IMAPSieve: a message a user moves (or copies) into Junk is learned as spam; out of Junk into any
 * other folder but Trash, as ham. `rspamc` sends it to rspamd's controller on loopback; with a
 * password file, rspamc reads the password from it (an argument starting with `/`), so it never
 * shows in the process list.
 */
export function learnScript(kind: 'spam' | 'ham', controller: string, passwordFile?: string): string {
  const args = ['-h', controller, ...(passwordFile ? ['-P', passwordFile] : []), `learn_${kind}`];
  const trashSkip =
    kind === 'ham'
      ? `if environment :matches "imap.mailbox" "*" {
  set "mailbox" "\${1}";
}
# Deleting spam is not calling it good mail.
if string :is "\${mailbox}" "Trash" {
  stop;
}
`
      : '';
  return `# Written by Atrium's mail-config: moving mail ${kind === 'spam' ? 'into' : 'out of'} Junk teaches rspamd (docs/mail.md).
require ["vnd.dovecot.pipe", "copy", "imapsieve", "environment", "variables"];
${trashSkip}pipe :copy "rspamc" ${list(args)};
`;
}

export interface OutOfOfficeScriptInput {
  /**
   * The person's other addresses (aliases): Sieve's vacation answers only mail that names the
   * recipient in To or Cc (RFC 5230 §4.5), and mail to an alias arrives for the primary address.
   */
  addresses?: string[];
  subject: string;
  message: string;
  /** Inclusive, `YYYY-MM-DD`, in the mail host's time zone. */
  firstDay: string;
  lastDay: string;
}

/**
 * A user's out-of-office reply: once per sender per OUT_OF_OFFICE_DAYS, only between the two days
 * (checked at delivery, so nothing has to switch it on or off), never to spam nor to no-reply
 * senders; Pigeonhole's vacation skips lists, bulk mail and automatic replies on its own.
 */
export function outOfOfficeScript(input: OutOfOfficeScriptInput): string {
  const addresses = input.addresses?.length ? ` :addresses ${list(input.addresses)}` : '';
  return `require ["vacation", "date", "relational", "envelope"];
if allof (
  currentdate :value "ge" "date" ${sieveString(input.firstDay)},
  currentdate :value "le" "date" ${sieveString(input.lastDay)},
  not header :is "X-Spam" "Yes",
  not envelope :localpart :matches "from" ${list(NO_REPLY_LOCAL_PARTS)},
  not address :localpart :matches "from" ${list(NO_REPLY_LOCAL_PARTS)}
) {
  vacation :days ${OUT_OF_OFFICE_DAYS}${addresses} :subject ${sieveString(input.subject)} ${sieveString(input.message)};
}
`;
}
