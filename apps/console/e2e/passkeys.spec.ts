import path from 'node:path';
import type { Page } from '@playwright/test';
import { hashPassword } from '../../server/src/lib/passwords.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect } from './support/fixtures.ts';
import { addVirtualAuthenticator, passkeyTest as test, withoutPasskeyAutofill } from './support/passkeys.ts';
import { totpCode } from './support/totp.ts';

// Issue 17 item 1: passkeys registered on /profile with Chromium's virtual authenticator, then
// signing in with one alone (button, and the e-mail field's suggestion) or after the password.
const PASSWORD = 'correct horse battery staple';
const shots = path.resolve(import.meta.dirname, '../../../screenshots/passkeys');

/** Adds a passkey named `name` on /profile; returns the section and the recovery codes, if shown. */
async function addPasskey(page: Page, name: string) {
  await page.goto('/profile');
  const section = page.getByRole('region', { name: 'Passkeys' });
  await section.getByRole('button', { name: 'Add a passkey' }).click();
  await section.getByLabel('Name').fill(name);
  await section.getByLabel('Current password').fill(PASSWORD);
  await section.getByRole('button', { name: 'Create the passkey' }).click();
  return section;
}

async function signOut(page: Page) {
  await page.goto('/dashboard');
  await page.getByRole('button', { name: 'Open profile panel' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login\?uid=/);
}

test('a user adds a passkey, signs in with it alone, then after the password, and removes it', async ({
  page,
  atrium,
  signInAs,
}) => {
  const authenticator = await addVirtualAuthenticator(page);
  await withoutPasskeyAutofill(page);
  const org = await createOrganizationWithAdmin(atrium.db);
  const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
  await signInAs(user);

  const section = await addPasskey(page, 'Work laptop');
  // The first strong factor brings the recovery codes, shown once.
  const once = section.getByTestId('recovery-codes-once');
  await expect(once.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(10);
  await once.getByRole('button', { name: 'I have saved them' }).click();
  const list = section.getByRole('list', { name: 'Your passkeys' });
  await expect(list.getByText('Work laptop')).toBeVisible();
  await expect(list.getByText(/not used yet/)).toBeVisible();
  expect(await authenticator.credentials()).toHaveLength(1);
  // The notice goes through the mail queue: it may land a moment after the page shows the passkey.
  await expect
    .poll(() => atrium.mailbox.messages.some((m) => /A passkey was added/.test(m.subject)))
    .toBe(true);

  // Signed out, the passkey alone signs in: no password, no code.
  await signOut(page);
  await expect(page.getByLabel('E-mail address')).toHaveAttribute('autocomplete', 'username webauthn');
  const mailsBefore = atrium.mailbox.count;
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  await expect(page.getByRole('button', { name: 'Open profile panel' })).toBeVisible();
  expect(atrium.mailbox.messages.slice(mailsBefore).some((m) => /sign-in code/.test(m.subject))).toBe(false);
  await page.goto('/profile');
  await expect(list.getByText(/last used/)).toBeVisible();

  // After the password, the passkey is asked for first; the other ways are there too.
  await signOut(page);
  await page.getByLabel('E-mail address').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Use another way' }).click();
  await expect(page.getByRole('button', { name: 'Use a recovery code' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send a code by e-mail' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Use your authenticator app' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Use your passkey' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  await expect(page.getByRole('button', { name: 'Open profile panel' })).toBeVisible();

  // Removed (password again), it signs nobody in; the password leads to an e-mailed code again.
  await page.goto('/profile');
  await list.getByRole('button', { name: 'Remove Work laptop' }).click();
  await section.getByLabel('Current password').fill(PASSWORD);
  await section.getByRole('button', { name: 'Remove the passkey' }).click();
  await expect(section.getByRole('list', { name: 'Your passkeys' })).toHaveCount(0);
  await signOut(page);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByText('This passkey could not sign you in.', { exact: false })).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
});

test('the e-mail field offers the passkey (conditional UI)', async ({ page, atrium, signInAs }) => {
  await addVirtualAuthenticator(page);
  const org = await createOrganizationWithAdmin(atrium.db);
  const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
  await signInAs(user);
  const section = await addPasskey(page, 'Phone');
  await section.getByRole('button', { name: 'I have saved them' }).click();
  await page.context().clearCookies();
  // Chromium's virtual authenticator answers the field's waiting request as if the person had
  // picked the suggestion: the page signs in with no password and no click.
  const mailsBefore = atrium.mailbox.count;
  await page.goto('/login');
  await expect(page).not.toHaveURL(/\/login/);
  await expect(page.getByRole('button', { name: 'Open profile panel' })).toBeVisible();
  expect(atrium.mailbox.messages.slice(mailsBefore).some((m) => /sign-in code/.test(m.subject))).toBe(false);
});

for (const width of [375, 768, 1000, 1280] as const) {
  test(`screenshots and axe at ${width} px: /profile's passkeys and the sign-in passkey step`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const shot = await screenshotAndAxe(page, shots, width);
    await addVirtualAuthenticator(page);
    await withoutPasskeyAutofill(page);
    const org = await createOrganizationWithAdmin(atrium.db);
    const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
    await signInAs(user);
    await page.goto('/profile');
    const section = page.getByRole('region', { name: 'Passkeys' });
    await section.getByRole('button', { name: 'Add a passkey' }).click();
    await section.getByLabel('Name').fill('Work laptop');
    await shot('profile-add', section);
    await section.getByLabel('Current password').fill(PASSWORD);
    await section.getByRole('button', { name: 'Create the passkey' }).click();
    await section.getByRole('button', { name: 'I have saved them' }).click();
    // A second, synced passkey from another device (one authenticator holds one per account).
    await atrium.db
      .insertInto('passkeys')
      .values({
        organization_id: org.id,
        user_id: user.id,
        credential_id: `other-device-${width}`,
        public_key: 'unused',
        backup_eligible: true,
        backed_up: true,
        name: 'Personal phone with a rather long name for a passkey',
      })
      .execute();
    await page.reload();
    await expect(section.getByText('Synced')).toBeVisible();
    await shot('profile-list', section);
    await section.getByRole('button', { name: 'Remove Work laptop' }).click();
    await expect(section.getByLabel('Current password')).toBeVisible();
    await shot('profile-remove', section);

    await page.context().clearCookies();
    await page.goto('/login');
    await expect(page.getByRole('button', { name: 'Sign in with a passkey' })).toBeVisible();
    await shot('login-password');
    await page.getByLabel('E-mail address').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('button', { name: 'Use your passkey' })).toBeVisible();
    await shot('login-passkey');
    await page.getByRole('button', { name: 'Use another way' }).click();
    await expect(page.getByRole('button', { name: 'Use a recovery code' })).toBeVisible();
    await page.mouse.move(0, 0);
    await shot('login-other-ways');
  });
}

// Issue 30 item 11: setting up an authenticator app after a passkey showed the recovery codes a
// second time (new ones, voiding the first), and their text spoke of "the app" only.
for (const width of [375, 1280] as const) {
  test(`after a passkey, the authenticator app shows no second set of recovery codes at ${width} px`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    await addVirtualAuthenticator(page);
    await page.setViewportSize({ width, height: 900 });
    const org = await createOrganizationWithAdmin(atrium.db);
    const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
    await signInAs(user);

    const passkeys = await addPasskey(page, 'Work laptop');
    const once = passkeys.getByTestId('recovery-codes-once');
    await expect(once).toContainText('If you lose your passkey or the phone with your authenticator app');
    await once.getByRole('button', { name: 'I have saved them' }).click();

    const app = page.getByRole('region', { name: 'Authenticator app' });
    await app.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await app.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
    await app.getByLabel('Code shown by the app').fill(totpCode(secret));
    await app.getByRole('button', { name: 'Turn on' }).click();
    await expect(app.getByText('Authenticator app is on')).toBeVisible();
    await expect(page.getByTestId('recovery-codes-once')).toHaveCount(0);
    // The codes are the app's section's to show now; the passkeys' section no longer repeats them.
    await expect(app.getByText('10 recovery codes left')).toBeVisible();
    await expect(passkeys.getByText(/recovery codes? left/)).toHaveCount(0);
    await page.screenshot({ path: path.join(shots, `${width}-app-after-passkey.png`), fullPage: true });
  });
}
