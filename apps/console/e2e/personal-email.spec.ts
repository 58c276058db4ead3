import path from 'node:path';
import { imapSignIn, inboxSubjects, sendMail } from '../../server/test/mail/mail-world.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import { insertVerifiedDomain } from './support/domains.ts';
import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';

// Issue 42, item 1: invitations reach invited users. This Atrium hosts its verified domains' mail
// (Debian's Postfix and Dovecot on loopback ask it), so a new user's address leads only to a
// mailbox they cannot open before they set a password: the invitation goes to the personal address
// typed in Add user, and without one the form chooses "Set a password" and says why. Mail sent to
// the new address meanwhile waits in the mailbox, and the person reads it over IMAP with the app
// password of the device they set up after signing in.
const shots = path.resolve(import.meta.dirname, '../../../screenshots/personal-email');
test.use({ atriumMail: true });

const PASSWORD = 'correct horse battery staple';

for (const width of [375, 1280] as const) {
  test(`at ${width} px an invitation goes to the personal address and the person sets a password`, async ({
    page,
    browser,
    atrium,
    signInAs,
  }) => {
    const shot = await screenshotAndAxe(page, shots, width);
    const org = await createOrganizationWithAdmin(atrium.db);
    const domain = `${org.siteName}.test`;
    await insertVerifiedDomain(atrium, org.id, domain);
    await signInAs(org.admin);

    await page.goto('/adduser');
    await page.getByLabel('First name').fill('Nina');
    await page.getByLabel('Last name').fill('New');
    await page.getByLabel('Part before the @').fill('nina');
    await page.getByLabel('Domain').selectOption(domain);
    // No personal address yet: the invitation cannot reach her, and the form says so.
    const why = page.getByTestId('no-invitation-address');
    await expect(why).toContainText(
      `nina@${domain} has no mailbox until the person signs in, and no personal address is given: add one or set a password`,
    );
    await expect(page.getByLabel('Set a first password now and give it to the user')).toBeChecked();
    await why.scrollIntoViewIfNeeded();
    await shot('add-user-no-personal-address');

    const personal = `nina.${org.siteName}@home.example`;
    await page.getByLabel('Personal email (for the invitation)').fill(personal.toUpperCase());
    await expect(page.getByLabel(/^E-mail an invitation/)).toBeChecked();
    await expect(why).toHaveCount(0);
    await page.getByLabel('Personal email (for the invitation)').scrollIntoViewIfNeeded();
    await shot('add-user-personal-address');
    await page.getByRole('button', { name: 'Add user' }).click();

    await expect(
      page.getByText(`Nina New was added and an invitation was sent to ${personal}.`),
    ).toBeVisible();
    await expect(page.getByText('Invited', { exact: true })).toBeVisible();
    await expect(page.getByLabel('Personal email (for invitations)')).toHaveValue(personal);
    await shot('user-detail');

    const link = await atrium.mailbox.waitForLink(personal);
    expect(link.startsWith(`${atrium.url}/invite/`)).toBe(true);
    expect(atrium.mailbox.messages.some((m) => m.to.includes(`nina@${domain}`))).toBe(false);

    // A message from another server reaches the new address before Nina has signed in: accepted
    // by Postfix on port 25 and kept in her mailbox.
    const mail = { mail: atrium.mail! };
    const subject = `Welcome aboard, Nina (${width} px)`;
    await sendMail(mail, {
      from: 'grace@partner.example',
      to: `nina@${domain}`,
      subject,
      text: 'See you Monday.',
    });
    await atrium.mail!.drainQueue();

    const visitor = await browser.newContext({ viewport: { width, height: 900 } });
    const invitee = await visitor.newPage();
    await invitee.goto(link);
    await expect(invitee.getByText(`Choose a password for nina@${domain}`)).toBeVisible();
    await invitee.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await invitee.getByLabel('New password again').fill(PASSWORD);
    await invitee.getByRole('button', { name: 'Set password' }).click();
    await expect(invitee.getByText('Your password is set')).toBeVisible();
    await invitee.getByRole('link', { name: 'Continue to your apps' }).click();
    await expect(invitee).toHaveURL(/\/application$/);

    // Signed in, she sets up her mail app from the apps page and reads the message over IMAP with
    // the app password it shows.
    await invitee
      .getByRole('link', { name: 'Set up mail, calendars and contacts on your phone or computer' })
      .click();
    const setup = invitee.getByRole('region', { name: 'Set up a device' });
    await setup.getByLabel('Thunderbird').check();
    await setup.getByRole('button', { name: 'Set up' }).click();
    const result = setup.getByTestId('device-setup-result');
    await expect(result.getByRole('heading', { name: 'Thunderbird is ready to set up' })).toBeVisible();
    await expect(result.getByRole('textbox', { name: 'User name (e-mail address)' })).toHaveValue(
      `nina@${domain}`,
    );
    const appPassword = await result.getByRole('textbox', { name: 'Password', exact: true }).inputValue();
    await result.scrollIntoViewIfNeeded();
    await (
      await screenshotAndAxe(invitee, shots, width)
    )('invitee-device', result);
    const imap = await imapSignIn(mail, { user: `nina@${domain}`, pass: appPassword });
    try {
      expect(await inboxSubjects(imap), atrium.mail!.logs()).toEqual([subject]);
    } finally {
      await imap.logout();
    }
    await visitor.close();

    // Active now: the personal address stays on her page, where it can be changed or removed.
    await page.reload();
    await expect(page.getByText('Active', { exact: true })).toBeVisible();
    await page.getByLabel('Personal email (for invitations)').fill('');
    await page.getByRole('button', { name: 'Save details' }).click();
    await expect(page.getByLabel('Personal email (for invitations)')).toHaveValue('');
  });
}

test('Add user refuses an invitation to the new address itself when the form is bypassed', async ({
  page,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const domain = `${org.siteName}.test`;
  await insertVerifiedDomain(atrium, org.id, domain);
  await signInAs(org.admin);
  await page.goto('/adduser');
  await page.getByLabel('First name').fill('Otto');
  await page.getByLabel('Last name').fill('Own');
  await page.getByLabel('Part before the @').fill('otto');
  await page.getByLabel('Domain').selectOption(domain);
  // The admin insists on the invitation: the server's answer names why, beside the field.
  await page.getByLabel(/^E-mail an invitation/).check();
  await page.getByRole('button', { name: 'Add user' }).click();
  await expect(
    page.getByText(
      `otto@${domain} has no mailbox until the person signs in, and no personal address is given: add one or set a password`,
    ),
  ).toHaveCount(2);
});
