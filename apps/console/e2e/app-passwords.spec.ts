import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

// Issue 14: a user makes an app password for a mail client on /profile, sees it once, sees when
// it was made, and revokes it after saying so.

test('a user creates an app password, sees it once, and revokes it', async ({ page, atrium, signInAs }) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const user = await createUser(atrium.db, org.id);
  await signInAs(user);
  await page.goto('/profile');
  const section = page.getByRole('region', { name: 'App passwords for mail' });
  await expect(section.getByText('No app passwords yet.')).toBeVisible();
  await expect(section.getByText(user.email)).toBeVisible();

  // A name is needed, and the form says so.
  await section.getByRole('button', { name: 'Create' }).click();
  await expect(
    section.getByText('Give the app password a name, such as the device or app it is for'),
  ).toBeVisible();

  await section.getByLabel('New app password').fill('Phone mail app');
  await section.getByRole('button', { name: 'Create' }).click();
  const once = section.getByTestId('app-password-once');
  await expect(
    once.getByRole('heading', { name: 'Copy the app password for Phone mail app now' }),
  ).toBeVisible();
  const password = await once.getByLabel('App password', { exact: true }).inputValue();
  expect(password.length).toBeGreaterThanOrEqual(16);
  const list = section.getByRole('list', { name: 'App passwords' });
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list.getByText('Phone mail app')).toBeVisible();
  await expect(list.getByText(/never used/)).toBeVisible();

  // Shown once: not after a reload.
  await page.reload();
  await expect(section.getByTestId('app-password-once')).toHaveCount(0);
  await expect(page.getByText(password)).toHaveCount(0);
  await expect(list.getByText('Phone mail app')).toBeVisible();

  await list.getByRole('button', { name: 'Revoke app password Phone mail app' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke the app password Phone mail app?' });
  await expect(dialog.getByText('Mail apps that use it are refused at once')).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await list.getByRole('button', { name: 'Revoke app password Phone mail app' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
  await expect(section.getByText('No app passwords yet.')).toBeVisible();
});
