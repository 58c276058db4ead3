import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { hashPassword } from '../../server/src/lib/passwords.ts';
import { createMailWorld, sendMail, type MailWorld } from '../../server/test/mail/mail-world.ts';
import { createUser, signInAs, type TestUser } from '../../server/test/support/fixtures.ts';
import { Mailbox } from '../../server/test/support/mailbox.ts';
import { TestRoundcube } from '../../server/test/support/roundcube.ts';
import { signInThroughLogin } from './support/sign-in.ts';

// Issue 14: Debian's Roundcube as the Mail app. Roundcube signs in through Atrium with its generic
// OAuth, then to Dovecot's IMAP and Postfix's submission with the access token (XOAUTH2), all of
// them real: Debian's Roundcube, Postfix and Dovecot, configured by the Mail app's own snippet and
// by mail-config, on loopback.

const PASSWORD = 'correct horse battery staple';
const consoleDist = path.resolve(import.meta.dirname, '../dist/index.html');

test.describe.configure({ mode: 'serial' });

test.describe('Roundcube as the Mail app', () => {
  let world: MailWorld;
  let mailbox: Mailbox;
  let roundcube: TestRoundcube;
  let user: TestUser;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    if (!existsSync(consoleDist)) throw new Error('Build the console first: npm run build');
    // Atrium's own mail (the sign-in code) goes to a loopback mailbox the test reads.
    mailbox = await Mailbox.start();
    world = await createMailWorld({ env: { SMTP_URL: mailbox.url, LOG_LEVEL: 'silent' } });
    roundcube = await TestRoundcube.prepare();
    user = await createUser(world.server.db, world.org.id, {
      email: `ada@${world.domain}`,
      passwordHash: await hashPassword(PASSWORD),
    });

    // The admin installs the Mail app with Roundcube's address, through Atrium's API.
    const admin = await signInAs(world.server.db, world.org.admin);
    const installed = await world.server.app.inject({
      method: 'POST',
      url: '/api/apps',
      headers: admin.headers,
      payload: {
        templateKey: 'mail',
        title: 'Mail',
        launchUrl: roundcube.url,
        redirectUris: [`${roundcube.url}/index.php/login/oauth`],
        openToEveryone: true,
        groupIds: [],
      },
    });
    expect(installed.statusCode, installed.body).toBe(201);
    const { app } = installed.json() as { app: { configSnippet: string } };

    // Roundcube gets the app's configuration as the app's page shows it; only where IMAP and
    // submission listen differs (the test's ports, without TLS on loopback).
    await roundcube.start(app.configSnippet, {
      imap_host: `127.0.0.1:${world.mail.ports.imap}`,
      smtp_host: `127.0.0.1:${world.mail.ports.submission}`,
    });
  });

  test.afterAll(async () => {
    await roundcube?.close();
    await world?.close();
    await mailbox?.close();
  });

  /** Opens Roundcube, which sends the browser to Atrium; signs in there with password and code. */
  async function signInThroughAtrium(page: Page) {
    await page.goto(roundcube.url);
    await expect(page).toHaveURL(new RegExp(`^${world.server.config.publicUrl.origin}/login\\?uid=`));
    const after = mailbox.count;
    await page.getByLabel('E-mail address').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByLabel('Sign-in code')).toBeVisible();
    await page.getByLabel('Sign-in code').fill(await mailbox.waitForCode(user.email, { after }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page, roundcube.logs()).toHaveURL(new RegExp(`^${roundcube.url}/\\?_task=mail`));
  }

  test('signs in through Atrium and lists the inbox over IMAP with the access token', async ({ page }) => {
    await sendMail(world, {
      from: 'grace@example.net',
      to: user.email,
      subject: 'Delivered by Postfix',
      text: 'Through Postfix and Dovecot to Roundcube.',
    });
    await world.mail.drainQueue();

    await signInThroughAtrium(page);
    const list = page.locator('#messagelist');
    await expect(list.getByText('Delivered by Postfix'), roundcube.logs() + world.mail.logs()).toBeVisible();
    await expect(page.getByText(user.email).first()).toBeVisible();
    // Dovecot took the access token (XOAUTH2), not a password.
    expect(readFileSync(world.mail.dovecotLog, 'utf8')).toContain(
      `imap-login: Info: Login: user=<${user.email}>, method=XOAUTH2,`,
    );
  });

  test('sends a message through Postfix submission with the access token, and it arrives', async ({
    page,
  }) => {
    await signInThroughAtrium(page);
    // Roundcube ignores Compose until its script has started and enabled the command; on a busy
    // machine the button is on screen well before that.
    await page.waitForFunction(
      () =>
        (window as unknown as { rcmail?: { commands?: Record<string, unknown> } }).rcmail?.commands?.compose,
    );
    await page.getByRole('button', { name: 'Compose' }).click();
    await page.locator('#_to').locator('..').locator('input').first().fill(user.email);
    await page.getByLabel('Subject').fill('Sent from Roundcube');
    await page.locator('#composebody').fill('Signed in to submission with the token.');
    // Roundcube's Send under the message (its toolbar has a hidden copy on wide screens).
    await page.locator('button.send').filter({ hasText: 'Send' }).click();
    await expect(page.getByText('Message sent successfully.'), roundcube.logs()).toBeVisible();
    await world.mail.drainQueue();
    // Postfix's submission service signed Roundcube in with the token (SASL through Dovecot).
    expect(readFileSync(world.mail.postfixLog, 'utf8')).toContain(
      `sasl_method=XOAUTH2, sasl_username=${user.email}`,
    );

    await page.goto(`${roundcube.url}/?_task=mail&_mbox=INBOX`);
    await expect(page.locator('#messagelist').getByText('Sent from Roundcube')).toBeVisible();
  });

  test('opened from Atrium’s apps page, Mail shows the inbox without signing in again; its Logout stays in Roundcube', async ({
    page,
  }) => {
    const atrium = world.server.config.publicUrl.origin;
    await signInThroughLogin(
      page,
      { mailbox },
      { email: user.email, password: PASSWORD },
      {
        startAt: `${atrium}/login`,
      },
    );
    const tile = page.getByRole('list', { name: 'Your apps' }).getByRole('link', { name: /Mail/ });
    const [mail] = await Promise.all([page.waitForEvent('popup'), tile.click()]);
    // Roundcube sends the new tab to Atrium, which knows the user and sends it straight back.
    await expect(mail, roundcube.logs()).toHaveURL(new RegExp(`^${roundcube.url}/\\?_task=mail`));
    await expect(mail.locator('#messagelist').getByText('Delivered by Postfix')).toBeVisible();

    // Roundcube's Logout ends its own session and stays on its page, offering Atrium again.
    await mail
      .getByRole('button', { name: 'Logout' })
      .or(mail.getByRole('link', { name: 'Logout' }))
      .click();
    await expect(mail.getByText('Login with Atrium')).toBeVisible();
    await expect(mail).toHaveURL(new RegExp(`^${roundcube.url}/`));
  });
});
