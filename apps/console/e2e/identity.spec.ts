import { hashPassword } from '../../server/src/lib/passwords.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';
import { signInThroughLogin } from './support/sign-in.ts';

// Issue 3: sign-in through /login with the e-mailed code, console session, sign-out.
const PASSWORD = 'correct horse battery staple';

test('an admin signs in through /login, stays signed in across a reload, signs out, and back does not show the console', async ({
  page,
  atrium,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db, { passwordHash: await hashPassword(PASSWORD) });

  // A signed-out visit to an admin page goes to sign in, then comes back to that page.
  await signInThroughLogin(
    page,
    atrium,
    { email: org.admin.email, password: PASSWORD },
    { startAt: '/dashboard' },
  );
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Admin home' })).toBeVisible();

  await page.reload();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Admin home' })).toBeVisible();
  await page.getByRole('button', { name: 'Open profile panel' }).click();
  await expect(page.getByTestId('profile-name')).toHaveText('Ada Admin');
  await expect(page.getByTestId('profile-email')).toHaveText(org.admin.email);

  // Whatever the console or an app left in storage is gone after sign-out.
  await page.evaluate(() => {
    localStorage.setItem('left-behind', '1');
    sessionStorage.setItem('left-behind', '1');
  });
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login\?uid=/);
  await expect(page.getByLabel('E-mail address')).toBeVisible();
  expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === 'atrium_session')).toBeUndefined();

  await page.goBack();
  await page.waitForLoadState('load');
  await expect(page.getByRole('heading', { level: 1, name: 'Admin home' })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Open profile panel' })).toBeHidden();
  // Wherever back led, the console asks for sign-in again.
  await expect(page).toHaveURL(/\/login/);
});

test('a user without the Dashboard group lands on /application and is kept out of admin pages', async ({
  page,
  atrium,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });

  await signInThroughLogin(
    page,
    atrium,
    { email: user.email, password: PASSWORD },
    { startAt: '/application' },
  );
  await expect(page).toHaveURL(/\/application$/);

  await page.goto('/users');
  await expect(page).toHaveURL(/\/application$/);
});

test('a wrong password is refused with one message; the code step offers a new code only after 60 s and another account', async ({
  page,
  atrium,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db, { passwordHash: await hashPassword(PASSWORD) });
  await page.goto('/login');
  await expect(page).toHaveURL(/\/login\?uid=/);
  await page.getByLabel('E-mail address').fill(org.admin.email);
  await page.getByLabel('Password', { exact: true }).fill('not the password');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toContainText('Incorrect e-mail or password');

  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByLabel('Sign-in code')).toBeVisible();
  await expect(page.getByRole('button', { name: /Send a new code in \d+ s/ })).toBeDisabled();
  await page.getByLabel('Sign-in code').fill('12');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Enter the 6-digit code from the e-mail')).toBeVisible();

  // Another account: back to the password step of the same sign-in.
  await page.getByRole('button', { name: 'Use another account' }).click();
  await expect(page.getByLabel('E-mail address')).toBeVisible();
  await expect(page.getByLabel('Sign-in code')).toBeHidden();
});

test('on /profile a user changes their password and ends another device’s session', async ({
  page,
  browser,
  atrium,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
  // A second device, signed in first.
  const otherDevice = await browser.newContext({ baseURL: atrium.url });
  const other = await otherDevice.newPage();
  await signInThroughLogin(
    other,
    atrium,
    { email: user.email, password: PASSWORD },
    { startAt: '/application' },
  );

  await signInThroughLogin(page, atrium, { email: user.email, password: PASSWORD }, { startAt: '/profile' });
  await expect(page).toHaveURL(/\/profile$/);
  const sessions = page.getByRole('list', { name: 'Active sessions' });
  await expect(sessions.getByRole('listitem')).toHaveCount(2);
  await expect(sessions.getByText('This session')).toBeVisible();
  await sessions.getByRole('button', { name: /^End session/ }).click();
  const confirm = page.getByRole('dialog', { name: /^End the session on / });
  await expect(confirm).toContainText('That device will be signed out.');
  await confirm.getByRole('button', { name: 'End session' }).click();
  await expect(sessions.getByRole('listitem')).toHaveCount(1);
  // The other device is signed out and must sign in again, not pass straight through.
  await other.goto('/application');
  await expect(other).toHaveURL(/\/login\?uid=/);
  await expect(other.getByLabel('E-mail address')).toBeVisible();
  await otherDevice.close();

  // A wrong current password is named on its field; the right one changes the password.
  const newPassword = 'a brand new passphrase 42';
  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password', { exact: true }).fill(newPassword);
  await page.getByLabel('New password again').fill(newPassword);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Your current password is not correct')).toBeVisible();
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(
    page.getByText('Your password was changed. Your other sessions were signed out.'),
  ).toBeVisible();

  // This session goes on; the next sign-in takes the new password only.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Profile' })).toBeVisible();
  const fresh = await browser.newContext({ baseURL: atrium.url });
  const later = await fresh.newPage();
  await later.goto('/login');
  await later.getByLabel('E-mail address').fill(user.email);
  await later.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await later.getByRole('button', { name: 'Continue' }).click();
  await expect(later.getByRole('alert')).toContainText('Incorrect e-mail or password');
  await signInThroughLogin(
    later,
    atrium,
    { email: user.email, password: newPassword },
    { startAt: '/application' },
  );
  await expect(later).toHaveURL(/\/application$/);
  await fresh.close();
});

test('forgot password: a code from the e-mail sets a new password, and sign-in takes it', async ({
  page,
  atrium,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
  await page.goto('/login');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  const after = atrium.mailbox.count;
  await page.getByLabel('E-mail address').fill(user.email);
  await page.getByRole('button', { name: 'Send a code' }).click();
  await expect(page.getByText(`If an account exists for ${user.email}, we sent a code to it.`)).toBeVisible();
  const code = await atrium.mailbox.waitForCode(user.email, { after, subject: /password reset/ });
  const newPassword = 'another fresh passphrase 7';
  await page.getByLabel('Code from the e-mail').fill(code);
  await page.getByLabel('New password', { exact: true }).fill(newPassword);
  await page.getByLabel('New password again').fill(newPassword);
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByText('Your password was changed. Sign in with your new password.')).toBeVisible();

  await signInThroughLogin(
    page,
    atrium,
    { email: user.email, password: newPassword },
    { startAt: '/application' },
  );
  await expect(page).toHaveURL(/\/application$/);
});
