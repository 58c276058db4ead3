import type { ImapFlow, ListResponse } from 'imapflow';
import type { Config } from '../../config.ts';
import type { DbOrTrx } from '../../db/database.ts';
import type { TarWriter } from '../../lib/tar-writer.ts';
import { masterLogin, masterPassword } from '../mail/config/mail-master-user.ts';
import { closeImap, LoginRefused, openImap } from '../migration/imap-copy.ts';

/**
 * Mailboxes into a takeout archive, read through Dovecot's IMAP as Atrium's master user (the same
 * login mail migration uses, docs/mail.md): no access to the mail store's files, and each folder
 * is read as Dovecot serves it, never a copy racing delivery. Each mailbox is written as a Maildir
 * (Maildir++ folders, as Dovecot keeps them): one file per message, flags in its name, the
 * received date as its time, so it can be dropped into another Dovecot or read by mail clients.
 */

/** Users whose mailbox is kept (suspended and invited users' too), in keyset pages. */
export async function mailboxUsers(
  db: DbOrTrx,
  organizationId: string,
  afterId: string | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('organization_id', '=', organizationId)
    .where('status', 'in', ['active', 'suspended', 'invited'])
    .orderBy('id')
    .limit(limit);
  if (afterId) query = query.where('id', '>', afterId);
  return query.execute();
}

export async function countMailboxUsers(db: DbOrTrx, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('status', 'in', ['active', 'suspended', 'invited'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** IMAP system flags → Maildir info letters (they must be in ASCII order). */
const FLAG_LETTERS: Record<string, string> = {
  '\\Draft': 'D',
  '\\Flagged': 'F',
  '\\Answered': 'R',
  '\\Seen': 'S',
  '\\Deleted': 'T',
};

export function maildirName(message: {
  uid: number;
  uidValidity: number;
  date: Date;
  size: number;
  flags: Iterable<string>;
}) {
  const letters = [...message.flags]
    .map((f) => FLAG_LETTERS[f])
    .filter((l): l is string => Boolean(l))
    .sort()
    .join('');
  const seconds = Math.floor(message.date.getTime() / 1000);
  return `${seconds}.U${message.uidValidity}_${message.uid}.atrium-takeout,S=${message.size}:2,${letters}`;
}

/**
 * A folder's Maildir++ directory: INBOX is the Maildir itself, others `.A.B` with the name as
 * Dovecot lists it (modified UTF-7) and `.` between levels. A `/` (not allowed in a file name)
 * becomes `_`.
 */
export function maildirFolder(folder: Pick<ListResponse, 'path' | 'pathAsListed' | 'delimiter'>): string {
  if (folder.path.toUpperCase() === 'INBOX') return '';
  const raw = folder.pathAsListed ?? folder.path;
  const parts = folder.delimiter ? raw.split(folder.delimiter) : [raw];
  return `.${parts.map((p) => p.replaceAll('/', '_').replaceAll('.', '_')).join('.')}`;
}

export interface MailboxOutcome {
  messages: number;
  /** Why the mailbox was not (fully) exported, for the archive's notes. */
  problem?: string;
}

/**
 * Writes one user's mailbox under `<root>/<email>/Maildir/`. A login Dovecot refuses (no mailbox
 * yet) is a note, not a failure; a connection that fails is the job's (it tries again).
 */
export async function exportMailbox(
  config: Config,
  tar: TarWriter,
  root: string,
  email: string,
  onMessage: () => Promise<void>,
): Promise<MailboxOutcome> {
  const imap = config.mail.imap ?? { host: '127.0.0.1', port: 143 };
  const loopback = /^(127\.|::1$|localhost$)/.test(imap.host);
  let client: ImapFlow;
  try {
    client = await openImap({
      address: imap.host,
      servername: config.mailHost,
      port: imap.port,
      // Dovecot takes plain-text logins on loopback only (mail-config); elsewhere, STARTTLS.
      tls: loopback ? 'none' : 'starttls',
      user: masterLogin(email),
      pass: masterPassword(config.secret),
    });
  } catch (error) {
    if (error instanceof LoginRefused)
      return { messages: 0, problem: `Dovecot did not open the mailbox: ${error.message}` };
    throw error;
  }
  const base = `${root}/${email}/Maildir`;
  let messages = 0;
  try {
    const folders = (await client.list()).filter(
      (f) => !f.flags.has('\\Noselect') && !f.flags.has('\\NonExistent'),
    );
    for (const folder of folders) {
      const dir = `${base}/${maildirFolder(folder)}`.replace(/\/$/, '');
      for (const sub of ['cur', 'new', 'tmp']) await tar.directory({ name: `${dir}/${sub}/`, mode: 0o700 });
      const opened = await client.mailboxOpen(folder.path, { readOnly: true });
      if (opened.exists === 0) continue;
      const uidValidity = Number(opened.uidValidity);
      for await (const m of client.fetch('1:*', {
        uid: true,
        flags: true,
        internalDate: true,
        source: true,
      })) {
        if (!m.source) continue;
        const date = m.internalDate ? new Date(m.internalDate) : new Date();
        const name = maildirName({
          uid: m.uid,
          uidValidity,
          date,
          size: m.source.length,
          flags: m.flags ?? [],
        });
        await tar.file({ name: `${dir}/cur/${name}`, mtime: date, mode: 0o600 }, m.source);
        messages++;
        await onMessage();
      }
    }
  } finally {
    await closeImap(client);
  }
  return { messages };
}
