import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { hashPassword } from '../../server/src/lib/passwords.ts';
import { createMailWorld, sendMail, type MailWorld } from '../../server/test/mail/mail-world.ts';
import { createUser, signInAs, type TestUser } from '../../server/test/support/fixtures.ts';
import { Mailbox } from '../../server/test/support/mailbox.ts';
import { TestWebmailHost } from '../../server/test/support/webmail-host.ts';
import { signInThroughLogin } from './support/sign-in.ts';

// Issue 14: Debian's Roundcube as the Mail app. Roundcube signs in through Atrium with its generic
// OAuth, then to Dovecot's IMAP and Postfix's submission with the access token (XOAUTH2), all of
// them real: Debian's Roundcube, Postfix and Dovecot, configured by mail-config, on loopback.
// Issue 31: Roundcube is served as install sets it up (PHP-FPM's atrium-webmail pool behind Caddy
// at https://<site>.<SITE_BASE_DOMAIN>/webmail) and reads the per-host file Atrium writes when the
// admin installs the app: nothing is pasted by hand. (Chromium sends *.localhost to loopback.)

const PASSWORD = 'correct horse battery staple';
const consoleDist = path.resolve(import.meta.dirname, '../dist/index.html');

test.describe.configure({ mode: 'serial' });

test.describe('Roundcube as the Mail app', () => {
  let world: MailWorld;
  let mailbox: Mailbox;
  let webmail: TestWebmailHost;
  let roundcubeUrl: string;
  let user: TestUser;

  // Caddy's certificate comes from its own internal CA.
  test.use({ ignoreHTTPSErrors: true });

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    if (!existsSync(consoleDist)) throw new Error('Build the console first: npm run build');
    // Atrium's own mail (the sign-in code) goes to a loopback mailbox the test reads.
    mailbox = await Mailbox.start();
    webmail = await TestWebmailHost.prepare();
    world = await createMailWorld({
      env: {
        SMTP_URL: mailbox.url,
        LOG_LEVEL: 'silent',
        SITE_BASE_DOMAIN: 'localhost',
        WEBMAIL_CONFIG_DIR: webmail.paths.webmailConfigDir,
      },
      // Roundcube reaches Dovecot and Postfix over loopback, at the test's ports.
      envFor: (ports) => ({
        WEBMAIL_IMAP_HOST: `127.0.0.1:${ports.imap}`,
        WEBMAIL_SMTP_HOST: `127.0.0.1:${ports.submission}`,
      }),
    });
    const siteHost = `${world.org.siteName}.localhost`;
    user = await createUser(world.server.db, world.org.id, {
      email: `ada@${world.domain}`,
      passwordHash: await hashPassword(PASSWORD),
    });

    // The admin installs the Mail app at the address the catalog offers (with Caddy's test port),
    // through Atrium's API.
    const admin = await signInAs(world.server.db, world.org.admin);
    const catalog = await world.server.app.inject({ url: '/api/apps/catalog', headers: admin.headers });
    const offered = (catalog.json() as { templates: { key: string; launchUrl: string }[] }).templates.find(
      (t) => t.key === 'mail',
    )!.launchUrl;
    expect(offered).toBe(`https://${siteHost}/webmail`);
    roundcubeUrl = webmail.urlFor(siteHost);
    const installed = await world.server.app.inject({
      method: 'POST',
      url: '/api/apps',
      headers: admin.headers,
      payload: {
        templateKey: 'mail',
        title: 'Mail',
        launchUrl: roundcubeUrl,
        redirectUris: [`${roundcubeUrl}/index.php/login/oauth`],
        openToEveryone: true,
        groupIds: [],
      },
    });
    expect(installed.statusCode, installed.body).toBe(201);
    // Atrium's job writes the host's file (Roundcube's include_host_config names it by Host).
    const hostFile = path.join(webmail.paths.webmailConfigDir, `${siteHost}${webmail.port}.inc.php`);
    await expect.poll(() => existsSync(hostFile), { timeout: 15_000 }).toBe(true);
    // Roundcube's managesieve plugin reaches Dovecot's ManageSieve on loopback, at the test's port.
    await webmail.start(siteHost, { managesieve: `127.0.0.1:${world.mail.ports.managesieve}` });
  });

  test.afterAll(async () => {
    await webmail?.close();
    await world?.close();
    await mailbox?.close();
  });

  /** Opens Roundcube, which sends the browser to Atrium; signs in there with password and code. */
  async function signInThroughAtrium(page: Page) {
    await page.goto(roundcubeUrl);
    await expect(page).toHaveURL(new RegExp(`^${world.server.config.publicUrl.origin}/login\\?uid=`));
    const after = mailbox.count;
    await page.getByLabel('E-mail address').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByLabel('Sign-in code')).toBeVisible();
    await page.getByLabel('Sign-in code').fill(await mailbox.waitForCode(user.email, { after }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page, webmail.logs()).toHaveURL(new RegExp(`^${roundcubeUrl}/\\?_task=mail`));
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
    await expect(list.getByText('Delivered by Postfix'), webmail.logs() + world.mail.logs()).toBeVisible();
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
    await expect(page.getByText('Message sent successfully.'), webmail.logs()).toBeVisible();
    await world.mail.drainQueue();
    // Postfix's submission service signed Roundcube in with the token (SASL through Dovecot).
    expect(readFileSync(world.mail.postfixLog, 'utf8')).toContain(
      `sasl_method=XOAUTH2, sasl_username=${user.email}`,
    );

    // After sending, Roundcube leaves the compose screen on its own: a navigation started while
    // that one runs is aborted (net::ERR_ABORTED), so the inbox is opened again until it shows.
    await expect(async () => {
      await page.goto(`${roundcubeUrl}/?_task=mail&_mbox=INBOX`);
      await expect(page.locator('#messagelist').getByText('Sent from Roundcube')).toBeVisible({
        timeout: 5000,
      });
    }).toPass({ timeout: 60_000 });
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
    await expect(mail, webmail.logs()).toHaveURL(new RegExp(`^${roundcubeUrl}/\\?_task=mail`));
    await expect(mail.locator('#messagelist').getByText('Delivered by Postfix')).toBeVisible();

    // Roundcube's Logout ends its own session and stays on its page, offering Atrium again.
    await mail
      .getByRole('button', { name: 'Logout' })
      .or(mail.getByRole('link', { name: 'Logout' }))
      .click();
    await expect(mail.getByText('Login with Atrium')).toBeVisible();
    await expect(mail).toHaveURL(new RegExp(`^${roundcubeUrl}/`));
  });

  test('Settings → Filters saves a filter through ManageSieve with the access token, and delivery follows it', async ({
    page,
  }) => {
    await signInThroughAtrium(page);
    await page.goto(`${roundcubeUrl}/?_task=settings&_action=plugin.managesieve`);
    await page
      .getByRole('button', { name: 'Create' })
      .or(page.getByRole('link', { name: 'Create' }))
      .first()
      .click();
    // The filter's form opens in the preferences frame.
    const form = page.frameLocator('#filter-box');
    await form.getByLabel('Filter name').fill('Receipts');
    // The rule's value: Roundcube's list widget in place of the hidden textarea it stands for.
    await form.locator('#rule_target0_list input').first().fill('Receipt');
    // "Mark message as" flagged: an action whose effect is visible without another folder.
    await form.locator('select[name="_action_type[0]"]').selectOption('addflag');
    await form.locator('#action_flags0').getByLabel('Flagged', { exact: true }).check();
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Filter saved successfully.'), webmail.logs()).toBeVisible();
    // Roundcube signed in to ManageSieve with the token, not a password.
    expect(readFileSync(world.mail.dovecotLog, 'utf8')).toContain(
      `managesieve-login: Info: Login: user=<${user.email}>, method=XOAUTH2,`,
    );

    await sendMail(world, { from: 'shop@example.net', to: user.email, subject: 'Receipt 42', text: 'x' });
    await world.mail.drainQueue();
    await page.goto(`${roundcubeUrl}/?_task=mail&_mbox=INBOX`);
    await expect(page.locator('#messagelist tr.flagged').getByText('Receipt 42')).toBeVisible();
  });
});
