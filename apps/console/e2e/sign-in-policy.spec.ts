import path from 'node:path';
import { hashPassword } from '../../server/src/lib/passwords.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import type { Locator, Page } from '@playwright/test';
import { createOrganizationWithAdmin, createUser, expect, test, type Atrium } from './support/fixtures.ts';
import { enterPassword } from './support/sign-in.ts';
import { totpCode } from './support/totp.ts';

// Issue 17 items 5 and 6: the organisation's sign-in policy with forced enrolment at /login, an
// admin's reset of a user's factors, and "Trust this browser for 30 days".
const PASSWORD = 'correct horse battery staple';
const shots = path.resolve(import.meta.dirname, '../../../screenshots/sign-in-policy');
/** Every cookie but the browser's device cookie: a sign-out that keeps the browser known. */
const ALL_BUT_DEVICE = /^(?!atrium_device$)/;

test('an admin requires an authenticator app; a member sets one up right after the password and code', async ({
  page,
  atrium,
  signInAs,
}) => {
  const passwordHash = await hashPassword(PASSWORD);
  const org = await createOrganizationWithAdmin(atrium.db, { passwordHash });
  const member = await createUser(atrium.db, org.id, { passwordHash });
  await signInAs(org.admin);
  await page.goto('/organization');
  const policy = page.getByRole('region', { name: 'Sign-in policy' });
  await expect(policy.getByLabel('Nobody (each user chooses)')).toBeChecked();
  await policy.getByLabel('Everyone').check();
  await policy.getByRole('button', { name: 'Save sign-in policy' }).click();
  await expect(policy.getByText('Saved.')).toBeVisible();
  await page.reload();
  await expect(policy.getByLabel('Everyone')).toBeChecked();

  await page.context().clearCookies();
  const after = atrium.mailbox.count;
  await enterPassword(page, { email: member.email, password: PASSWORD });
  await page.getByLabel('Sign-in code').fill(await atrium.mailbox.waitForCode(member.email, { after }));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Set up an authenticator app' })).toBeVisible();
  await expect(page).toHaveURL(/\/login\?uid=/);
  const secret = (await page.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
  await page.getByLabel('Code shown by the app').fill(totpCode(secret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  const once = page.getByTestId('recovery-codes-once');
  await expect(once.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(10);
  await once.getByRole('button', { name: 'I have saved them' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto('/profile');
  await expect(page.getByText('Authenticator app is on')).toBeVisible();
});

test('a browser trusted at sign-in asks only for the password, until removed on /profile', async ({
  page,
  atrium,
}) => {
  const passwordHash = await hashPassword(PASSWORD);
  const org = await createOrganizationWithAdmin(atrium.db, { passwordHash });
  const user = await createUser(atrium.db, org.id, { passwordHash });
  let after = atrium.mailbox.count;
  await enterPassword(page, { email: user.email, password: PASSWORD });
  await page.getByLabel('Sign-in code').fill(await atrium.mailbox.waitForCode(user.email, { after }));
  await page.getByLabel('Trust this browser for 30 days').check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/login/);

  // Signed out, the same browser: the password is enough.
  await page.context().clearCookies({ name: ALL_BUT_DEVICE });
  after = atrium.mailbox.count;
  await enterPassword(page, { email: user.email, password: PASSWORD });
  await expect(page).not.toHaveURL(/\/login/);
  expect(atrium.mailbox.messages.slice(after).some((m) => /sign-in code/.test(m.subject))).toBe(false);

  await page.goto('/profile');
  const section = page.getByRole('region', { name: 'Trusted browsers' });
  await expect(section.getByText('This browser')).toBeVisible();
  await section.getByRole('button', { name: /^Remove trusted browser/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
  await expect(section.getByText('No trusted browsers.')).toBeVisible();

  await page.context().clearCookies({ name: ALL_BUT_DEVICE });
  await enterPassword(page, { email: user.email, password: PASSWORD });
  await expect(page.getByLabel('Sign-in code')).toBeVisible();
});

test('an admin resets a user’s sign-in factors from the user’s page', async ({ page, atrium, signInAs }) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const user = await createUser(atrium.db, org.id, { firstName: 'Rita', lastName: 'Reset' });
  await signInAs(org.admin);
  const after = atrium.mailbox.count;
  await page.goto(`/users/${user.id}`);
  await page.getByRole('button', { name: 'Reset sign-in factors' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Reset sign-in factors' }).click();
  await expect(page.getByText('The sign-in factors were reset.')).toBeVisible();
  const mail = await atrium.mailbox.waitFor(user.email, { after });
  expect(mail.subject).toBe('An administrator reset how you sign in to Atrium');
});

// Each state once, shot and checked with axe at each width: the flows that reach them are the
// slow part, and doing them once per width took four times as long.
const WIDTHS = [375, 768, 1000, 1280] as const;

/** Screenshots `name` (the element, or the whole page) and checks axe at each width. */
async function atEachWidth(page: Page, name: string, element?: Locator) {
  for (const width of WIDTHS) await (await screenshotAndAxe(page, shots, width))(name, element);
}

/** An organisation whose member has a password; the admin's session in this browser. */
async function organizationWithMember(atrium: Atrium) {
  const passwordHash = await hashPassword(PASSWORD);
  const org = await createOrganizationWithAdmin(atrium.db, { passwordHash });
  const user = await createUser(atrium.db, org.id, { passwordHash });
  return { org, user };
}

/** The member signs in with the password and the e-mailed code, without pressing Sign in. */
async function passwordAndCode(page: Page, atrium: Atrium, email: string) {
  const after = atrium.mailbox.count;
  await enterPassword(page, { email, password: PASSWORD });
  await page.getByLabel('Sign-in code').fill(await atrium.mailbox.waitForCode(email, { after }));
}

/** Policy "everyone": the member signs in and sets up the app; at the step it shows, `during`. */
async function enrolUnderPolicy(
  page: Page,
  atrium: Atrium,
  organizationId: string,
  email: string,
  during: { enrolment?: () => Promise<void>; codes?: () => Promise<void> } = {},
) {
  await atrium.db
    .insertInto('sign_in_policies')
    .values({ organization_id: organizationId, strong_factor_required: 'everyone' })
    .execute();
  await passwordAndCode(page, atrium, email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Set up an authenticator app' })).toBeVisible();
  await expect(page.getByTestId('totp-secret')).toBeVisible();
  await during.enrolment?.();
  const secret = (await page.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
  await page.getByLabel('Code shown by the app').fill(totpCode(secret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await expect(page.getByTestId('recovery-codes-once')).toBeVisible();
  await during.codes?.();
  await page.getByRole('button', { name: 'I have saved them' }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

test('screenshots and axe at 375, 768, 1000 and 1280 px: the sign-in policy and a user’s sign-in factors', async ({
  page,
  atrium,
  signInAs,
}) => {
  const { org, user } = await organizationWithMember(atrium);
  await signInAs(org.admin);
  await page.goto('/organization');
  const policy = page.getByRole('region', { name: 'Sign-in policy' });
  await expect(policy.getByLabel('Nobody (each user chooses)')).toBeChecked();
  await atEachWidth(page, 'organization-policy', policy);
  await page.goto(`/users/${user.id}`);
  const factors = page.locator('.card', { has: page.getByRole('heading', { name: 'Sign-in factors' }) });
  await expect(factors.getByRole('button', { name: 'Reset sign-in factors' })).toBeVisible();
  await atEachWidth(page, 'user-factors', factors);
});

test('screenshots and axe at 375, 768, 1000 and 1280 px: the trust box at sign-in and trusted browsers on /profile', async ({
  page,
  atrium,
}) => {
  const { user } = await organizationWithMember(atrium);
  await passwordAndCode(page, atrium, user.email);
  await page.getByLabel('Trust this browser for 30 days').check();
  await atEachWidth(page, 'login-trust-browser');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto('/profile');
  const trusted = page.getByRole('region', { name: 'Trusted browsers' });
  await expect(trusted.getByText('This browser')).toBeVisible();
  await atEachWidth(page, 'profile-trusted-browsers', trusted);
});

test('screenshots and axe at 375, 768, 1000 and 1280 px: forced enrolment and its recovery codes', async ({
  page,
  atrium,
}) => {
  const { org, user } = await organizationWithMember(atrium);
  await enrolUnderPolicy(page, atrium, org.id, user.email, {
    enrolment: () => atEachWidth(page, 'login-enrolment'),
    codes: () => atEachWidth(page, 'login-enrolment-codes'),
  });
});

test('screenshots and axe at 375, 768, 1000 and 1280 px: the other ways of a later sign-in, with the trust box', async ({
  page,
  atrium,
}) => {
  const { org, user } = await organizationWithMember(atrium);
  await enrolUnderPolicy(page, atrium, org.id, user.email);
  // A later sign-in from another browser.
  await page.context().clearCookies();
  await enterPassword(page, { email: user.email, password: PASSWORD });
  await expect(page.getByLabel('Authenticator code')).toBeVisible();
  await expect(page.getByLabel('Trust this browser for 30 days')).toBeVisible();
  await page.getByRole('button', { name: 'Use another way' }).click();
  await expect(page.getByRole('button', { name: 'Use a recovery code' })).toBeVisible();
  await page.mouse.move(0, 0);
  await atEachWidth(page, 'login-other-ways');
});
