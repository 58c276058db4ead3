import path from 'node:path';
import type { Page } from '@playwright/test';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

// Issue 42, item 6: on /users/:id the admin sees the user's devices (their app passwords: name,
// created, last used) and revokes one after a confirmation: a lost phone stops signing in at once.
const shots = path.resolve(import.meta.dirname, '../../../screenshots/user-devices');

const card = (page: Page) =>
  page.locator('.card').filter({ has: page.getByRole('heading', { name: 'Devices' }) });

for (const width of [375, 1280] as const) {
  test(`at ${width} px the admin sees a user's devices and revokes one`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db);
    const shot = await screenshotAndAxe(page, shots, width);
    const user = await createUser(atrium.db, org.id, { firstName: 'Ada', lastName: 'Lovelace' });
    await atrium.db
      .insertInto('app_passwords')
      .values([
        {
          organization_id: org.id,
          user_id: user.id,
          name: 'Lost phone',
          lookup: 'abcd',
          password_hash: 'not-a-hash',
          created_at: new Date(Date.now() - 30 * 86_400_000),
          last_used_at: new Date(Date.now() - 3_600_000),
        },
        {
          organization_id: org.id,
          user_id: user.id,
          name: 'Laptop mail',
          lookup: 'efgh',
          password_hash: 'not-a-hash',
        },
      ])
      .execute();
    await signInAs(org.admin);
    await page.goto(`/users/${user.id}`);
    const devices = card(page);
    const list = devices.getByRole('list', { name: 'Devices of Ada Lovelace' });
    await expect(list.getByRole('listitem')).toHaveCount(2);
    const phone = list.getByRole('listitem').filter({ hasText: 'Lost phone' });
    await expect(phone.getByText(/^Created: .+/)).toBeVisible();
    await expect(phone.getByText(/^Last used: (?!never).+/)).toBeVisible();
    const laptop = list.getByRole('listitem').filter({ hasText: 'Laptop mail' });
    await expect(laptop.getByText('Last used: never')).toBeVisible();
    await devices.scrollIntoViewIfNeeded();
    await shot('card', devices);

    // Asked first: Cancel leaves it.
    await devices.getByRole('button', { name: 'Revoke app password Lost phone' }).click();
    const dialog = page.getByRole('dialog', {
      name: 'Revoke the app password “Lost phone” of Ada Lovelace?',
    });
    await expect(dialog.getByText(/stops signing in to mail, calendars and contacts at once/)).toBeVisible();
    await shot('revoke-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(list.getByRole('listitem')).toHaveCount(2);

    await devices.getByRole('button', { name: 'Revoke app password Lost phone' }).click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await expect(dialog).toBeHidden();
    await expect(
      devices.getByText('The app password “Lost phone” was revoked: that device can no longer sign in.'),
    ).toBeVisible();
    await expect(list.getByRole('listitem')).toHaveCount(1);
    await expect(devices.getByText('Lost phone', { exact: true })).toHaveCount(0);
    const left = await atrium.db
      .selectFrom('app_passwords')
      .select('name')
      .where('user_id', '=', user.id)
      .execute();
    expect(left).toEqual([{ name: 'Laptop mail' }]);
    await page.mouse.move(0, 0);
    await shot('card-after', devices);

    // The last one: the card says the user has none.
    await devices.getByRole('button', { name: 'Revoke app password Laptop mail' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect(devices.getByText('No devices: this user has no app passwords.')).toBeVisible();
    await page.mouse.move(0, 0);
    await shot('card-empty', devices);
    await shot('page');

    await page.goto('/activity');
    await expect(page.getByText('User app password revoked').locator('visible=true').first()).toBeVisible();
  });
}
