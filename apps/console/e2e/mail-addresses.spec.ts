import path from 'node:path';
import { axe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';
import { insertVerifiedDomain } from './support/domains.ts';
import { afterNextPaint } from './support/frames.ts';

// Issue 14: Mail Settings' addresses. An admin gives a user an alias and finds it, gives a group
// its address, sets a domain's catch-all, and removes the alias after the shared confirmation.

test('an admin adds an alias, sets a group address and a catch-all, and removes the alias', async ({
  page,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const name = `addr-${Date.now().toString(36)}.example`;
  await insertVerifiedDomain(atrium, org.id, name, { token: 'mailaddresses', primary: true });
  await createUser(atrium.db, org.id, { email: `grace@${name}`, firstName: 'Grace', lastName: 'Hopper' });
  const group = await atrium.db
    .insertInto('groups')
    .values({ organization_id: org.id, name: 'Sales', name_key: 'sales' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await signInAs(org.admin);
  await page.goto('/mail-settings');

  const aliases = page.getByRole('form', { name: 'Add an alias' });
  await aliases.getByLabel('User').fill('Grace');
  await aliases.getByRole('button', { name: /Grace Hopper/ }).click();
  await aliases.getByLabel('Address').fill('amazing.grace');
  await aliases.getByRole('button', { name: 'Add alias' }).click();
  const list = page.getByRole('list', { name: 'Aliases' });
  await expect(list.getByText(`amazing.grace@${name}`)).toBeVisible();

  // The clash is named.
  await aliases.getByLabel('Address').fill('grace');
  await aliases.getByRole('button', { name: 'Add alias' }).click();
  await expect(aliases.getByRole('alert').or(aliases.locator('.alert-danger'))).toContainText(
    `grace@${name} is already the address of Grace Hopper`,
  );

  await page.getByLabel('Find an alias').fill('zzz');
  await expect(page.getByText('No alias starts so.')).toBeVisible();
  await page.getByLabel('Find an alias').fill('amaz');
  await expect(list.getByText(`amazing.grace@${name}`)).toBeVisible();

  const groups = page.getByRole('form', { name: 'Set a group address' });
  await groups.getByLabel('Group').selectOption(group.id);
  await groups.getByLabel('Address').fill('sales');
  await groups.getByRole('button', { name: 'Set group address' }).click();
  await expect(page.getByRole('list', { name: 'Group addresses' }).getByText(`sales@${name}`)).toBeVisible();

  await page.getByRole('button', { name: `Set the catch-all of ${name}` }).click();
  const catchAll = page.getByRole('form', { name: `Catch-all of ${name}` });
  await catchAll.getByLabel('A group').check();
  await catchAll.getByLabel('Group', { exact: true }).selectOption(group.id);
  await catchAll.getByRole('button', { name: 'Save catch-all' }).click();
  await expect(page.getByTestId(`catch-all-${name}`)).toHaveText('To the group Sales');

  // As scripts/screenshots.ts takes them: a viewport as tall as the page (a full-page capture
  // would paint the fixed header mid-page).
  for (const width of [375, 768, 1000, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width, height: Math.min(height, 4000) });
    await afterNextPaint(page);
    await page.screenshot({ path: path.join(test.info().outputDir, `mail-settings-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });

  // Every section filled in, and a catch-all form open: nothing serious for assistive technology.
  await page.getByRole('button', { name: `Set the catch-all of ${name}` }).click();
  const { violations } = await axe(page).analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  await page.getByRole('button', { name: `Set the catch-all of ${name}` }).click();

  // Removals ask first in the shared dialog: Cancel changes nothing, confirming removes.
  await list.getByRole('button', { name: `Remove the alias amazing.grace@${name}` }).click();
  const dialog = page.getByRole('dialog', { name: `Remove the alias amazing.grace@${name}?` });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(list.getByText(`amazing.grace@${name}`)).toBeVisible();
  await list.getByRole('button', { name: `Remove the alias amazing.grace@${name}` }).click();
  await dialog.getByRole('button', { name: 'Remove alias' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('No alias starts so.')).toBeVisible();

  await page.getByRole('button', { name: 'Remove the address of Sales' }).click();
  const groupDialog = page.getByRole('dialog', { name: `Remove sales@${name} from Sales?` });
  await groupDialog.getByRole('button', { name: 'Remove address' }).click();
  await expect(groupDialog).toBeHidden();
  await expect(page.getByText('No group has an address yet.')).toBeVisible();

  await page.getByRole('button', { name: `Remove the catch-all of ${name}` }).click();
  const catchAllDialog = page.getByRole('dialog', { name: `Remove the catch-all of ${name}?` });
  await catchAllDialog.getByRole('button', { name: 'Remove catch-all' }).click();
  await expect(page.getByTestId(`catch-all-${name}`)).toHaveText('None: unknown addresses are refused');
});
