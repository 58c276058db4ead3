import path from 'node:path';
import { hashPassword } from '../../server/src/lib/passwords.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

// Issue 42, items 3 and 5: "Set up a device" has its own address (/profile/devices) that the apps
// page points to; a second device of a kind is offered a free name; a password change names the
// devices it will disconnect (their app passwords end with the old password) and says it did, with
// a way back to setting them up.

const shots = path.resolve(import.meta.dirname, '../../../screenshots/devices');
const PASSWORD = 'correct horse battery staple';

// Devices are set up only once the operator names MAIL_HOST.
test.use({ atriumEnv: { MAIL_HOST: 'mail.atrium.test' } });

for (const width of [375, 1280] as const) {
  test(`at ${width} px the apps page reaches Set up a device, a second iPhone is “iPhone 2”, and a password change names both`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const shot = await screenshotAndAxe(page, shots, width);
    const org = await createOrganizationWithAdmin(atrium.db);
    const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
    await signInAs(user);

    // The apps page points to the set-up, which opens scrolled to and focused.
    await page.goto('/application');
    const link = page.getByRole('link', {
      name: 'Set up mail, calendars and contacts on your phone or computer',
    });
    await expect(link).toBeVisible();
    await shot('apps-page-link');
    await link.click();
    await expect(page).toHaveURL(/\/profile\/devices$/);
    const section = page.getByRole('region', { name: 'Set up a device' });
    await expect(section.getByRole('heading', { name: 'Set up a device' })).toBeFocused();
    await expect(section.getByRole('heading', { name: 'Set up a device' })).toBeInViewport();

    // First iPhone, then a second of the same kind: the name offered is free.
    const name = section.getByLabel('Device name');
    await expect(name).toHaveValue('iPhone');
    await section.getByRole('button', { name: 'Set up' }).click();
    const result = section.getByTestId('device-setup-result');
    await expect(
      result.getByRole('heading', { name: 'iPhone (iPhone, iPad or Mac) is ready to set up' }),
    ).toBeVisible();
    await result.getByRole('button', { name: 'Done' }).click();
    await expect(name).toHaveValue('iPhone 2');
    await shot('second-device-name', section);
    await section.getByRole('button', { name: 'Set up' }).click();
    await expect(
      result.getByRole('heading', { name: 'iPhone 2 (iPhone, iPad or Mac) is ready to set up' }),
    ).toBeVisible();
    await result.getByRole('button', { name: 'Done' }).click();
    await expect(name).toHaveValue('iPhone 3');

    // The password form says which devices will stop syncing.
    const form = page.getByRole('region', { name: 'Change password' });
    await expect(
      form.getByText('These devices will stop syncing until you set them up again: iPhone, iPhone 2'),
    ).toBeVisible();
    await shot('password-form-devices', form);

    const newPassword = 'a brand new passphrase 42';
    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByLabel('New password', { exact: true }).fill(newPassword);
    await form.getByLabel('New password again').fill(newPassword);
    await form.getByRole('button', { name: 'Change password' }).click();

    // The answer names what actually ended, and the list of app passwords is empty.
    await expect(
      form.getByText(
        'Your password was changed. Your other sessions were signed out, and 2 devices (iPhone, iPhone 2) were disconnected.',
      ),
    ).toBeVisible();
    await expect(form.getByTestId('password-devices')).toHaveCount(0);
    await expect(
      page.getByRole('region', { name: 'App passwords for mail' }).getByText('No app passwords yet.'),
    ).toBeVisible();
    await shot('password-changed', form);

    await form.getByRole('link', { name: 'Set up a device again' }).click();
    await expect(page).toHaveURL(/\/profile\/devices$/);
    await expect(section.getByRole('heading', { name: 'Set up a device' })).toBeFocused();
    await expect(section.getByRole('heading', { name: 'Set up a device' })).toBeInViewport();
    // Every app password ended: the first name is free again.
    await expect(name).toHaveValue('iPhone');
    await shot('set-up-again');
  });
}
