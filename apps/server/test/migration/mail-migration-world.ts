import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll } from 'vitest';
import { createMailWorld, imapSignIn, type MailWorld } from '../mail/mail-world.ts';
import { signInAs, type TestSession, type TestUser } from '../support/fixtures.ts';
import { OldImapServer } from '../support/old-imap-server.ts';
import { as } from '../users/helpers.ts';
import { runJobsUntil } from './helpers.ts';

// Mail migration end to end: a second real Dovecot on loopback is the old provider; Atrium copies
// into the mailbox of its own Dovecot (mail-world), which the tests read back over IMAP as the user.

export let world: MailWorld;
export let old: OldImapServer;
export let admin: TestSession;

/** Runs after each progress write of a migration run (a cancel test stops one there). */
let onProgress: ((migrationId: string) => Promise<void>) | undefined;
export const setOnProgress = (hook: typeof onProgress) => (onProgress = hook);

/** Both mail servers and Atrium for the file's tests; `users`: logins and passwords at the old provider. */
export function useMigrationWorld(users: Record<string, string>): void {
  beforeAll(async () => {
    world = await createMailWorld({
      env: { MIGRATION_PRIVATE_HOSTS: 'true' },
      deps: { migration: { afterMailProgress: async (id) => onProgress?.(id) } },
    });
    old = await OldImapServer.start(users);
    admin = await signInAs(world.server.db, world.org.admin);
    // Jobs run only when a test drains the queue (finish), so a test can act on a migration
    // (cancel it, say) before its job has run.
    await world.server.app.jobs.stop();
  }, 60_000);

  afterAll(async () => {
    await old?.close();
    await world?.close();
  });
}

export const api = () => as(world.server, admin);

let n = 0;
function message(subject: string) {
  return Buffer.from(
    `From: someone@elsewhere.test\r\nTo: ann@old.test\r\nSubject: ${subject}\r\n` +
      `Message-ID: <${subject.replace(/\W/g, '.')}@old.test>\r\nDate: Mon, 2 Mar 2026 10:00:00 +0000\r\n\r\n` +
      `The text of ${subject}.\r\n`,
  );
}

export async function put(client: ImapFlow, folder: string, subject: string, flags: string[], date: string) {
  await client.mailboxCreate(folder).catch(() => undefined);
  await client.append(folder, message(subject), flags, new Date(date));
}

/** Subject → flags and internal date, per folder, of a mailbox read over IMAP. */
async function contents(client: ImapFlow) {
  const result: Record<string, Record<string, { flags: string[]; date: string }>> = {};
  for (const folder of await client.list()) {
    if (folder.flags.has('\\Noselect')) continue;
    const lock = await client.getMailboxLock(folder.path, { readOnly: true });
    try {
      const messages: Record<string, { flags: string[]; date: string }> = {};
      if (client.mailbox && client.mailbox.exists > 0) {
        for await (const m of client.fetch('1:*', { envelope: true, flags: true, internalDate: true })) {
          const subject = m.envelope?.subject ?? '';
          if (messages[subject]) throw new Error(`${subject} is in ${folder.path} twice`);
          messages[subject] = {
            flags: [...(m.flags ?? [])].filter((f) => f !== '\\Recent').sort(),
            date: new Date(m.internalDate!).toISOString(),
          };
        }
      }
      result[folder.path] = messages;
    } finally {
      lock.release();
    }
  }
  return result;
}

export async function atriumMailbox(user: TestUser) {
  const created = await world.server.app.inject({
    method: 'POST',
    url: '/api/profile/app-passwords',
    headers: (await signInAs(world.server.db, user)).headers,
    payload: { name: `Test reader ${++n}` },
  });
  const client = await imapSignIn(world, {
    user: user.email,
    pass: (created.json() as { password: string }).password,
  });
  try {
    return await contents(client);
  } finally {
    await client.logout();
  }
}

export async function finish(id: string) {
  await runJobsUntil(world.server, async () => {
    const row = await world.server.db
      .selectFrom('mail_migrations')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return !['queued', 'running'].includes(row.status);
  });
  return (await api().get(`/api/migration/mail-migrations/${id}`)).body;
}

export const passwordOf = async (id: string) =>
  (
    await world.server.db
      .selectFrom('mail_migrations')
      .select('source_password_enc')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).source_password_enc;

export const source = (login: string, password: string) => ({
  host: '127.0.0.1',
  port: old.port,
  tls: 'none',
  login,
  password,
});
