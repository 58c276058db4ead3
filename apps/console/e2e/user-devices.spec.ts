import path from 'node:path';
import type { Page } from '@playwright/test';
import { screenshotAndAxe } from './support/accessibility.ts';
import { insertVerifiedDomain } from './support/domains.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';
import { appPassword, imapSignsIn } from './support/mail.ts';

// Issue 42, item 6: on /users/:id the admin sees the user's devices (their app passwords: name,
// created, last used) and revokes one after a confirmation: a lost phone stops signing in at once.
// Real Dovecot on loopback checks each device's app password with Atrium (IMAP), so the revoked
// one is refused there while the user's other device still signs in.
const shots = path.resolve(import.meta.dirname, '../../../screenshots/user-devices');
test.use({ atriumMail: true });

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
    const domain = `${org.siteName}.test`;
    await insertVerifiedDomain(atrium, org.id, domain);
    const user = await createUser(atrium.db, org.id, {
      email: `ada@${domain}`,
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    const phone = await appPassword(atrium, user, 'Lost phone');
    const laptop = await appPassword(atrium, user, 'Laptop mail');
    // The phone synced mail before it was lost: Dovecot's sign-in is its last use.
    expect(await imapSignsIn(atrium, user, phone), atrium.mail!.logs()).toBe(true);
    await signInAs(org.admin);
    await page.goto(`/users/${user.id}`);
    const devices = card(page);
    const list = devices.getByRole('list', { name: 'Devices of Ada Lovelace' });
    await expect(list.getByRole('listitem')).toHaveCount(2);
    const phoneItem = list.getByRole('listitem').filter({ hasText: 'Lost phone' });
    await expect(phoneItem.getByText(/^Created: .+/)).toBeVisible();
    await expect(phoneItem.getByText(/^Last used: (?!never).+/)).toBeVisible();
    const laptopItem = list.getByRole('listitem').filter({ hasText: 'Laptop mail' });
    await expect(laptopItem.getByText('Last used: never')).toBeVisible();
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
    // Dovecot refuses the lost phone's app password at once; the laptop still reads the mailbox.
    expect(await imapSignsIn(atrium, user, phone), atrium.mail!.logs()).toBe(false);
    expect(await imapSignsIn(atrium, user, laptop), atrium.mail!.logs()).toBe(true);
    await page.mouse.move(0, 0);
    await shot('card-after', devices);

    // The last one: the card says the user has none.
    await devices.getByRole('button', { name: 'Revoke app password Laptop mail' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect(devices.getByText('No devices: this user has no app passwords.')).toBeVisible();
    expect(await imapSignsIn(atrium, user, laptop)).toBe(false);
    await page.mouse.move(0, 0);
    await shot('card-empty', devices);
    await shot('page');

    await page.goto('/activity');
    await expect(page.getByText('User app password revoked').locator('visible=true').first()).toBeVisible();
  });
}
