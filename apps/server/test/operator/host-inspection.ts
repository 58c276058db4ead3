import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { expect } from 'vitest';
import { parseDump } from '../../src/db/logical-dump.ts';
import { masterLogin, masterPassword } from '../../src/modules/mail/config/mail-master-user.ts';
import { readSettingsFile } from '../../src/operator/settings-file.ts';
import { MAIL_HOST, type InstalledHost } from './installed-host.ts';

/** What the backup drill reads off an installed host: its files, its mail, its server's tables. */

/** The CLI without blocking this process (whose clients keep writing meanwhile), on `host`. */
export function cliInBackground(
  host: InstalledHost,
  args: string[],
): Promise<{ status: number | null; output: string; stdout: string }> {
  const cli = path.resolve(import.meta.dirname, '../../src/cli.ts');
  const child = spawn(process.execPath, [cli, ...args, '--root', host.layout.root], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, output: `${stdout}${stderr}` })),
  );
}

/**
 * Every file below `dir` with its content, owner and mode. A file gone between the listing and
 * the read (Dovecot's lock files, while mail is delivered) was not there to keep.
 */
export function filesOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const at = path.join(dir, name);
    try {
      const s = statSync(at);
      if (s.isFile())
        files[name] = `${s.uid}:${s.gid} ${(s.mode & 0o7777).toString(8)} ${readFileSync(at, 'base64')}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return files;
}

/** The mail store's messages (Dovecot's index files, which it rebuilds, left out). */
export const messageFiles = (host: InstalledHost) =>
  Object.fromEntries(
    Object.entries(filesOf(host.layout.mailRoot)).filter(([name]) => /\/(cur|new)\//.test(name)),
  );

/** Subjects of the messages in the mail store now, read from the files Dovecot delivered. */
export const subjectsOnDisk = (host: InstalledHost) =>
  Object.keys(messageFiles(host)).map(
    (name) => /^Subject: (.*)$/m.exec(readFileSync(path.join(host.layout.mailRoot, name), 'utf8'))?.[1] ?? '',
  );

/** An IMAP session as `user`, through Dovecot's master user (the secret's). */
export async function imapAs<T>(
  host: InstalledHost,
  user: string,
  secret: string,
  use: (client: ImapFlow) => Promise<T>,
): Promise<T> {
  const connection = new ImapFlow({
    host: '127.0.0.1',
    port: host.ports.imap,
    secure: false,
    // STARTTLS, the certificate checked as a mail client does.
    tls: { servername: MAIL_HOST, ca: host.mailCa() },
    auth: { user: masterLogin(user), pass: masterPassword(secret) },
    logger: false,
  });
  await connection.connect();
  try {
    return await use(connection);
  } finally {
    await connection.logout();
  }
}

/** Every message of one of `user`'s folders: subject and flags. */
export const folderOf = (host: InstalledHost, user: string, secret: string, name: string) =>
  imapAs(host, user, secret, async (c) => {
    const lock = await c.getMailboxLock(name);
    try {
      const all = await c.fetchAll('1:*', { envelope: true, flags: true });
      return all.map((m) => [m.envelope?.subject, [...(m.flags ?? [])].sort()]);
    } finally {
      lock.release();
    }
  });

/** The "… added" figure of a backup's summary line, in bytes. */
export function addedBytes(summary: string): number {
  const [, value, unit] = /: ([\d.]+) (B|KiB|MiB|GiB) added/.exec(summary)!;
  return Number(value) * 1024 ** ['B', 'KiB', 'MiB', 'GiB'].indexOf(unit!);
}

/** The running server's dump (the same endpoint and token backup uses), by table. */
export async function liveTables(host: InstalledHost) {
  const settings = readSettingsFile(host.layout.settingsFile)!;
  const response = await fetch(`${host.publicUrl}/api/operator/database-dump`, {
    headers: { authorization: `Bearer ${settings.BACKUP_TOKEN}` },
  });
  expect(response.status).toBe(200);
  const dump = parseDump(await response.text());
  return Object.fromEntries(
    dump.tables.map((t) => [t.name, t.rows.map((r) => JSON.parse(r) as Record<string, unknown>)]),
  );
}
