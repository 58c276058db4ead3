import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { hashPassword } from '../../server/src/lib/passwords.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';
import { enterPassword } from './support/sign-in.ts';
import { totpCode } from './support/totp.ts';

// Issue 17 (first part): an authenticator app set up on /profile with a QR code, recovery codes
// shown once, and sign-in with the app's code or, another way, with a recovery code.
const PASSWORD = 'correct horse battery staple';
const shots = path.resolve(import.meta.dirname, '../../../screenshots/strong-sign-in');

/** Sets the app up on /profile; returns its key and the recovery codes the page showed. */
async function setUpApp(page: Page, shot?: (name: string, section: Locator) => Promise<void>) {
  await page.goto('/profile');
  const section = page.getByRole('region', { name: 'Authenticator app' });
  await section.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await expect(
    section.getByRole('img', { name: 'QR code to scan with your authenticator app' }),
  ).toBeVisible();
  const secret = (await section.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await shot?.('profile-setup', section);
  await section.getByLabel('Code shown by the app').fill(totpCode(secret));
  await section.getByRole('button', { name: 'Turn on' }).click();
  const once = section.getByTestId('recovery-codes-once');
  await expect(once.getByRole('heading', { name: 'Save your recovery codes now' })).toBeVisible();
  const codes = await once
    .getByRole('list', { name: 'Recovery codes' })
    .getByRole('listitem')
    .allTextContents();
  expect(codes).toHaveLength(10);
  await shot?.('profile-recovery-codes', section);
  return { section, secret, codes, once };
}

test('a user sets up an authenticator app, saves the recovery codes, and signs in with the app or a code', async ({
  page,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
  await signInAs(user);
  const { section, secret, codes, once } = await setUpApp(page);

  // Downloadable as a text file with every code.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    once.getByRole('button', { name: 'Download' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('atrium-recovery-codes.txt');
  const text = await readFile((await download.path())!, 'utf8');
  for (const code of codes) expect(text).toContain(code);

  await once.getByRole('button', { name: 'I have saved them' }).click();
  await expect(section.getByText('Authenticator app is on')).toBeVisible();
  await expect(section.getByText(/10 recovery codes left/)).toBeVisible();
  // Shown once: neither the key nor a code is on the page after a reload.
  await page.reload();
  await expect(section.getByText('Authenticator app is on')).toBeVisible();
  await expect(page.getByText(codes[0]!)).toHaveCount(0);
  await expect(page.getByTestId('totp-secret')).toHaveCount(0);

  // Signing in again: after the password, the app's code instead of an e-mail.
  await page.context().clearCookies();
  const mailsBefore = atrium.mailbox.count;
  await enterPassword(page, { email: user.email, password: PASSWORD });
  await expect(page.getByLabel('Authenticator code')).toBeVisible();
  await page.getByLabel('Authenticator code').fill(totpCode(secret, 1));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  expect(atrium.mailbox.messages.slice(mailsBefore).some((m) => /sign-in code/.test(m.subject))).toBe(false);

  // Another way: a recovery code, once.
  await page.context().clearCookies();
  await enterPassword(page, { email: user.email, password: PASSWORD });
  await page.getByRole('button', { name: 'Use another way' }).click();
  await expect(page.getByRole('button', { name: 'Send a code by e-mail' })).toBeVisible();
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  await page.getByLabel('Recovery code').fill(codes[0]!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto('/profile');
  await expect(section.getByText(/9 recovery codes left/)).toBeVisible();
});

test('a wrong authenticator code is refused with the tries left', async ({ page, atrium, signInAs }) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
  await signInAs(user);
  const { secret, once } = await setUpApp(page);
  await once.getByRole('button', { name: 'I have saved them' }).click();
  await page.context().clearCookies();
  await enterPassword(page, { email: user.email, password: PASSWORD });
  const right = totpCode(secret, 1);
  await page.getByLabel('Authenticator code').fill(right === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('This code is not correct. 4 tries left.')).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
});

for (const width of [375, 768, 1000, 1280] as const) {
  test(`screenshots and axe at ${width} px: /profile's authenticator app and the sign-in factor step`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    // The /profile section alone (the page's fixed header would cross a full-page shot), and
    // the whole sign-in page.
    // Each state is also checked with axe-core (WCAG 2.1 AA), as every other screen is.
    const shot = await screenshotAndAxe(page, shots, width);
    const org = await createOrganizationWithAdmin(atrium.db);
    const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
    await signInAs(user);
    const { section, once } = await setUpApp(page, shot);
    await once.getByRole('button', { name: 'I have saved them' }).click();
    await expect(section.getByText('Authenticator app is on')).toBeVisible();
    await section.getByRole('button', { name: 'Remove' }).click();
    await expect(section.getByLabel('Current password')).toBeVisible();
    await shot('profile-active', section);

    await page.context().clearCookies();
    await enterPassword(page, { email: user.email, password: PASSWORD });
    await expect(page.getByLabel('Authenticator code')).toBeVisible();
    await shot('login-totp');
    await page.getByRole('button', { name: 'Use another way' }).click();
    await expect(page.getByRole('button', { name: 'Use a recovery code' })).toBeVisible();
    await page.mouse.move(0, 0);
    await shot('login-other-ways');
    await page.getByRole('button', { name: 'Send a code by e-mail' }).click();
    await expect(page.getByLabel('Sign-in code')).toBeVisible();
    await shot('login-email-code');
  });
}
