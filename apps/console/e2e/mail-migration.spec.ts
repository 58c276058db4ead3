import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { createMailWorld, imapSignIn, type MailWorld } from '../../server/test/mail/mail-world.ts';
import { signInAs } from '../../server/test/support/fixtures.ts';
import { OldImapServer } from '../../server/test/support/old-imap-server.ts';
import { masterLogin, masterPassword } from '../../server/src/modules/mail/config/mail-master-user.ts';

// Issue 16 part B: an admin migrates a mailbox from the old provider (a second real Dovecot on
// loopback) into the user's Atrium mailbox (Debian's Dovecot configured by mail-config) from
// /data-migration, and watches the job finish.

const consoleDist = path.resolve(import.meta.dirname, '../dist/index.html');

test.describe('mail migration from the console', () => {
  let world: MailWorld;
  let old: OldImapServer;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    if (!existsSync(consoleDist)) throw new Error('Build the console first: npm run build');
    world = await createMailWorld({ env: { MIGRATION_PRIVATE_HOSTS: 'true', LOG_LEVEL: 'silent' } });
    old = await OldImapServer.start({ 'grace@old.test': 'grace-secret' });
    const client = await old.signIn('grace@old.test');
    try {
      for (const [folder, subject] of [
        ['INBOX', 'Welcome'],
        ['INBOX', 'Invoice'],
        ['Sent Items', 'Thanks'],
      ] as const) {
        await client.append(
          folder,
          Buffer.from(`Subject: ${subject}\r\nMessage-ID: <${subject}@old.test>\r\n\r\n${subject}.\r\n`),
          ['\\Seen'],
        );
      }
    } finally {
      await client.logout();
    }
  });

  test.afterAll(async () => {
    await old?.close();
    await world?.close();
  });

  test('an admin starts a mailbox migration and sees it finish with every message', async ({
    page,
    context,
  }) => {
    const user = await world.user();
    const session = await signInAs(world.server.db, world.org.admin);
    const [name, value] = session.cookie.split('=') as [string, string];
    await context.addCookies([
      { name, value, url: world.server.config.publicUrl.origin, httpOnly: true, sameSite: 'Lax' },
    ]);
    await page.goto(`${world.server.config.publicUrl.origin}/data-migration`);
    await expect(page.getByRole('heading', { level: 2, name: 'Mail from your old provider' })).toBeVisible();

    const form = page.getByRole('form', { name: 'Migrate one mailbox' });
    await form.getByLabel('Atrium address').fill(user.email);
    await form.getByLabel('Old provider’s IMAP server').fill('127.0.0.1');
    await form.getByLabel('Security').selectOption('none');
    await form.getByLabel('Port').fill(String(old.port));
    await form.getByLabel('Login at the old provider').fill('grace@old.test');
    await form.getByLabel('Password or app password').fill('grace-secret');
    await form.getByRole('button', { name: 'Migrate this mailbox' }).click();
    await expect(page.getByText(`The migration into ${user.email} started.`)).toBeVisible();

    const job = page.getByTestId('migration-job').filter({ hasText: `Mail into ${user.email}` });
    await expect(job.getByText('Finished')).toBeVisible({ timeout: 30_000 });
    await expect(job.getByTestId('job-progress')).toContainText('3 of 3 messages');
    await expect(job.getByRole('button', { name: 'Copy new mail' })).toBeVisible();
    await job.getByRole('button', { name: 'Folders' }).click();
    const folders = job.getByRole('region', { name: `Folders of ${user.email}` });
    await expect(folders.getByRole('row', { name: 'INBOX INBOX 2' })).toBeVisible();
    // The old provider's "Sent Items" went into the user's Sent folder.
    await expect(folders.getByRole('row', { name: 'Sent Items Sent 1' })).toBeVisible();

    // Really there, read back over IMAP.
    const imap = await imapSignIn(world, {
      user: masterLogin(user.email),
      pass: masterPassword(world.server.config.secret),
    });
    const count = async (folder: string) => {
      const status = await imap.status(folder, { messages: true });
      return status ? status.messages : undefined;
    };
    try {
      expect(await count('INBOX')).toBe(2);
      expect(await count('Sent')).toBe(1);
    } finally {
      await imap.logout();
    }
  });
});
