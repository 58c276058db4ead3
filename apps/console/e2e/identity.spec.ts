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
