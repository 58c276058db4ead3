import { sql } from 'kysely';
import { installDefaultApps } from '../../server/src/modules/apps/default-apps.ts';
import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';
import { insertVerifiedDomain } from './support/domains.ts';
import { signInThroughLogin } from './support/sign-in.ts';
import { submitGraceWithPassword } from './support/add-user.ts';

// Issue 5: users and groups, through the real console, server, SMTP mailbox and sign-in.
const PASSWORD = 'correct horse battery staple';

test('an admin adds a user with a password; Dashboard membership and suspension take effect at once', async ({
  page,
  browser,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  await insertVerifiedDomain(atrium, org.id, `${org.siteName}.test`);
  await signInAs(org.admin);

  await page.goto('/users');
  await page.getByRole('link', { name: 'Add a user' }).first().click();
  await expect(page).toHaveURL(/\/adduser$/);
  await submitGraceWithPassword(page, `${org.siteName}.test`, 'password');
  // The contracts schema lets "password" through (8 characters); the server's blocklist does not.
  await expect(page.getByText('This password is too common')).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Add user' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Grace Hopper' })).toBeVisible();
  await expect(
    page.getByText('Grace Hopper was added and can sign in with the password you set.'),
  ).toBeVisible();
  const email = `grace@${org.siteName}.test`;

  // The user signs in (code from the loopback SMTP server): apps page, no admin console.
  const userContext = await browser.newContext({ baseURL: atrium.url });
  const userPage = await userContext.newPage();
  await signInThroughLogin(userPage, atrium, { email, password: PASSWORD }, { startAt: '/application' });
  await expect(userPage).toHaveURL(/\/application$/);
  await userPage.getByRole('button', { name: 'Open profile panel' }).click();
  await expect(userPage.getByTestId('profile-email')).toHaveText(email);
  await expect(userPage.getByRole('link', { name: 'Go to Admin Console' })).toBeHidden();

  // The admin adds them to Dashboard; on their next load they are an admin.
  await page.getByLabel('Add to group').selectOption({ label: 'Dashboard' });
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  // Dashboard's members are the administrators: the console asks first.
  await page
    .getByRole('dialog', { name: 'Make Grace Hopper an administrator?' })
    .getByRole('button', { name: 'Make administrator' })
    .click();
  await expect(page.getByRole('button', { name: 'Remove from Dashboard' })).toBeVisible();
  await userPage.reload();
  await userPage.getByRole('button', { name: 'Open profile panel' }).click();
  await expect(userPage.getByRole('link', { name: 'Go to Admin Console' })).toBeVisible();

  // The admin suspends them; their next request ends their session.
  await page.getByRole('button', { name: 'Suspend' }).click();
  await page
    .getByRole('dialog', { name: 'Suspend Grace Hopper?' })
    .getByRole('button', { name: 'Suspend' })
    .click();
  await expect(page.getByText('Suspended', { exact: true })).toBeVisible();
  await userPage.goto('/users');
  await expect(userPage).toHaveURL(/\/login/);
  await userContext.close();
});

test('an invitation link from the e-mail sets the password once; a used or expired link is refused', async ({
  page,
  browser,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const domain = `${org.siteName}.test`;
  await insertVerifiedDomain(atrium, org.id, domain);
  // As every organisation made by sign-up has: cloud storage, open to everyone.
  await installDefaultApps(atrium.db, atrium.config, { id: org.id, siteName: org.siteName });
  await signInAs(org.admin);

  await page.goto('/adduser');
  await page.getByLabel('First name').fill('Ivy');
  await page.getByLabel('Last name').fill('Invitee');
  await page.getByLabel('Part before the @').fill('ivy');
  await page.getByLabel('Domain').selectOption(domain);
  await page.getByRole('button', { name: 'Add user' }).click();
  await expect(
    page.getByText(`Ivy Invitee was added and an invitation was sent to ivy@${domain}.`),
  ).toBeVisible();
  await expect(page.getByText('Invited', { exact: true })).toBeVisible();
  // The page is titled with their name, and lists the app open to everyone: theirs once they accept.
  await expect(page).toHaveTitle('Ivy Invitee | Atrium');
  await expect(page.getByRole('list', { name: 'Apps they can open' })).toHaveText('Cloud Storage');
  await expect(page.getByText('No app is open to this user’s groups.')).toHaveCount(0);
  await expect(page.getByText(/^An invitation link is waiting to be used until/)).toBeVisible();

  const link = await atrium.mailbox.waitForLink(`ivy@${domain}`);
  expect(link.startsWith(`${atrium.url}/invite/`)).toBe(true);
  const visitor = await browser.newContext();
  const invitee = await visitor.newPage();
  await invitee.goto(link);
  await expect(invitee.getByRole('heading', { name: 'Set your password' })).toBeVisible();
  await expect(invitee.getByText(`Choose a password for ivy@${domain}`)).toBeVisible();
  await invitee.getByLabel('New password', { exact: true }).fill(PASSWORD);
  await invitee.getByLabel('New password again').fill(PASSWORD);
  await invitee.getByRole('button', { name: 'Set password' }).click();
  await expect(invitee.getByText('Your password is set')).toBeVisible();
  // The link proved the address, so the single-use sign-in ticket opens the apps page directly.
  await invitee.getByRole('link', { name: 'Continue to your apps' }).click();
  await expect(invitee).toHaveURL(/\/application$/);
  await expect(invitee.getByRole('button', { name: 'Open profile panel' })).toBeVisible();
  await expect(
    invitee.getByRole('list', { name: 'Your apps' }).getByRole('link', { name: /Cloud Storage/ }),
  ).toBeVisible();
  await expect(invitee.getByRole('heading', { name: 'No apps yet' })).toHaveCount(0);

  // The same link again: refused, and it says why.
  await invitee.goto(link);
  await expect(invitee.getByText('This link cannot be used')).toBeVisible();
  await expect(invitee.getByText(/already been used/)).toBeVisible();

  // The new password signs in (another browser: password and the mailed code).
  const later = await browser.newContext({ baseURL: atrium.url });
  const laterPage = await later.newPage();
  await signInThroughLogin(
    laterPage,
    atrium,
    { email: `ivy@${domain}`, password: PASSWORD },
    { startAt: '/application' },
  );
  await expect(laterPage).toHaveURL(/\/application$/);
  await later.close();

  // An expired invitation.
  await page.goto('/adduser');
  await page.getByLabel('First name').fill('Late');
  await page.getByLabel('Last name').fill('Comer');
  await page.getByLabel('Part before the @').fill('late');
  await page.getByLabel('Domain').selectOption(domain);
  await page.getByRole('button', { name: 'Add user' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Late Comer' })).toBeVisible();
  const lateLink = await atrium.mailbox.waitForLink(`late@${domain}`);
  await sql`update invitations set expires_at = now() - interval '1 minute' where used_at is null`.execute(
    atrium.db,
  );
  const latePage = await (await browser.newContext()).newPage();
  await latePage.goto(lateLink);
  await expect(
    latePage.getByText('This link has expired. Ask your administrator to send you a new one.'),
  ).toBeVisible();
  await expect(latePage.getByLabel('New password', { exact: true })).toBeHidden();
  await visitor.close();
});

test('the users list searches, filters and pages; groups are created and get members', async ({
  page,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  await sql`
    insert into users (organization_id, email, first_name, last_name, name_key)
    select ${org.id}::uuid, 'person' || i || '@list.test', 'Person', 'N' || lpad(i::text, 3, '0'),
      'person n' || lpad(i::text, 3, '0')
    from generate_series(1, 60) as i`.execute(atrium.db);
  await signInAs(org.admin);

  await page.goto('/users');
  await expect(page.getByRole('row')).toHaveCount(51);
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('Page 2')).toBeVisible();
  await expect(page.getByRole('row')).toHaveCount(12);
  await page.getByRole('button', { name: 'Previous' }).click();
  await expect(page.getByText('Page 1')).toBeVisible();
  await page.getByLabel('Search users').fill('person n05');
  await expect(page.getByRole('row')).toHaveCount(11);
  // The search is in the address: a user's page and back keeps it.
  await page.getByRole('link', { name: 'Person N050' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Person N050' })).toBeVisible();
  await page.goBack();
  await expect(page.getByLabel('Search users')).toHaveValue('person n05');
  await expect(page.getByRole('row')).toHaveCount(11);
  await page.getByLabel('Search users').fill('nobody-like-this');
  await expect(page.getByText('No users match')).toBeVisible();
  await page.getByRole('button', { name: 'Clear search and filter' }).click();
  await expect(page.getByLabel('Search users')).toHaveValue('');
  await expect(page.getByRole('row')).toHaveCount(51);
  await page.getByLabel('Status').selectOption('suspended');
  await expect(page.getByText('No users match')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Export CSV' })).toHaveAttribute('href', /status=suspended/);

  await page.goto('/groups');
  await page.getByLabel('New group').fill('Readers');
  await page.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByRole('heading', { name: 'Readers members' })).toBeVisible();
  await page.getByLabel('New group').fill('readers');
  await page.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByText('A group with this name already exists')).toBeVisible();
  await page.getByLabel('Add people').fill('person n001');
  await page.getByRole('button', { name: 'Add Person N001' }).click();
  await expect(page.getByRole('link', { name: 'Person N001' })).toBeVisible();
  await expect(
    page.getByRole('row', { name: /Readers/ }).getByRole('cell', { name: '1', exact: true }),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: 'Rename Dashboard' })).toBeHidden();
});
