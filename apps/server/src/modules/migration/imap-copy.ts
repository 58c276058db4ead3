import { isIP } from 'node:net';
import { ImapFlow, type ListResponse } from 'imapflow';
import type { SourceTls } from '../../db/mail-migration-tables.ts';

/** The IMAP side of mail migration (imapflow): sessions, folder mapping, message listing and copying. */

export interface ImapEndpoint {
  /** What to connect to (an address already checked), and the name for TLS. */
  address: string;
  servername: string;
  port: number;
  tls: SourceTls;
  user: string;
  pass: string;
}

/** The server refused the login (wrong password, IMAP disabled for the account). */
export class LoginRefused extends Error {}

export async function openImap(endpoint: ImapEndpoint): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: endpoint.address,
    port: endpoint.port,
    secure: endpoint.tls === 'tls',
    // 'starttls' insists on the upgrade (no silent plain text); 'none' stays plain (trusted networks).
    doSTARTTLS: endpoint.tls === 'starttls' ? true : endpoint.tls === 'none' ? false : undefined,
    ...(isIP(endpoint.servername) ? {} : { servername: endpoint.servername }),
    auth: { user: endpoint.user, pass: endpoint.pass },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: 30_000,
    greetingTimeout: 20_000,
    socketTimeout: 5 * 60_000,
  });
  // A dropped connection surfaces as the failing command's error; this keeps it from crashing.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    const failed = error as { authenticationFailed?: boolean; responseText?: string };
    if (failed.authenticationFailed) throw new LoginRefused(failed.responseText ?? 'Authentication failed');
    throw error;
  }
  return client;
}

export async function closeImap(client: ImapFlow | undefined): Promise<void> {
  if (!client) return;
  await client.logout().catch(() => client.close());
}

const SPECIAL_NAMES: Record<string, string> = {
  '\\Sent': 'Sent',
  '\\Drafts': 'Drafts',
  '\\Trash': 'Trash',
  '\\Junk': 'Junk',
  '\\Archive': 'Archive',
};

/** Virtual folders (Gmail's All Mail, Starred) show messages kept elsewhere: copying them would duplicate. */
const VIRTUAL = new Set(['\\All', '\\Flagged']);

/** Folders that can hold messages; \Noselect ones are made when their children are. */
export async function sourceFolders(client: ImapFlow): Promise<ListResponse[]> {
  const all = await client.list();
  return all.filter(
    (f) =>
      !f.flags.has('\\Noselect') &&
      !f.flags.has('\\NonExistent') &&
      !VIRTUAL.has(f.specialUse ?? '') &&
      ![...f.flags].some((flag) => VIRTUAL.has(flag)),
  );
}

export interface TargetInfo {
  delimiter: string;
  /** Special-use attribute → the folder that has it. */
  special: Map<string, string>;
  existing: Set<string>;
}

export async function targetInfo(client: ImapFlow): Promise<TargetInfo> {
  const all = await client.list();
  const special = new Map<string, string>();
  for (const folder of all) if (folder.specialUse) special.set(folder.specialUse, folder.path);
  return {
    delimiter: all.find((f) => f.delimiter)?.delimiter ?? '.',
    special,
    existing: new Set(all.map((f) => f.path)),
  };
}

/**
 * The folder a source folder goes into: the same name (the hierarchy in the target's separator),
 * except that Sent, Drafts, Trash, Junk and Archive go into the target's folder of that use, so
 * "Sent Items" lands where the user's mail client keeps sent mail.
 */
export function targetPath(folder: ListResponse, target: TargetInfo): string {
  if (folder.path.toUpperCase() === 'INBOX') return 'INBOX';
  const use = folder.specialUse && SPECIAL_NAMES[folder.specialUse];
  if (use) return target.special.get(folder.specialUse!) ?? use;
  const parts = folder.delimiter ? folder.path.split(folder.delimiter) : [folder.path];
  // A separator inside a name would split it into folders of its own.
  return parts.map((p) => p.split(target.delimiter).join('_')).join(target.delimiter);
}

/** Creates the folder and its parents if missing, subscribed so mail clients show them. */
export async function ensureFolder(client: ImapFlow, path: string, target: TargetInfo): Promise<void> {
  const parts = path.split(target.delimiter);
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join(target.delimiter);
    if (target.existing.has(prefix) || prefix.toUpperCase() === 'INBOX') continue;
    await client.mailboxCreate(prefix);
    await client.mailboxSubscribe(prefix).catch(() => undefined);
    target.existing.add(prefix);
  }
}

export interface SourceMessage {
  uid: number;
  size: number;
  messageId: string | null;
}

function messageIdOf(headers: Buffer | undefined): string | null {
  if (!headers) return null;
  const match = /^message-id:[ \t]*((?:.|\r?\n[ \t])+)/im.exec(headers.toString('utf8'));
  return match ? match[1]!.replace(/\s+/g, '').toLowerCase() || null : null;
}

/** The messages of the open folder with a UID above `afterUid`, by UID. */
export async function messagesAfter(client: ImapFlow, afterUid: number): Promise<SourceMessage[]> {
  const mailbox = client.mailbox;
  if (!mailbox || mailbox.exists === 0) return [];
  const found: SourceMessage[] = [];
  for await (const message of client.fetch(
    `${afterUid + 1}:*`,
    { uid: true, size: true, headers: ['message-id'] },
    { uid: true },
  )) {
    // "n:*" always includes the highest UID, even below n.
    if (message.uid <= afterUid) continue;
    found.push({ uid: message.uid, size: message.size ?? 0, messageId: messageIdOf(message.headers) });
  }
  return found.sort((a, b) => a.uid - b.uid);
}

/** The Message-IDs already in a target folder: what a copy must not add again. */
export async function messageIdsIn(client: ImapFlow, path: string): Promise<Set<string>> {
  const ids = new Set<string>();
  const mailbox = await client.mailboxOpen(path, { readOnly: true });
  if (mailbox.exists === 0) return ids;
  for await (const message of client.fetch('1:*', { uid: true, headers: ['message-id'] })) {
    const id = messageIdOf(message.headers);
    if (id) ids.add(id);
  }
  return ids;
}

/** Copies one message with its flags and internal date; false if it went away meanwhile. */
export async function copyMessage(
  source: ImapFlow,
  target: ImapFlow,
  uid: number,
  targetFolder: string,
): Promise<boolean> {
  const message = await source.fetchOne(
    String(uid),
    { uid: true, flags: true, internalDate: true, source: true },
    { uid: true },
  );
  if (!message || !message.source) return false;
  // \Recent belongs to the server's session; the others (\Seen, \Flagged, keywords) are the user's.
  const flags = [...(message.flags ?? [])].filter((f) => f !== '\\Recent');
  const date = message.internalDate ? new Date(message.internalDate) : undefined;
  await target.append(targetFolder, message.source, flags, date);
  return true;
}
