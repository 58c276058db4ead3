import path from 'node:path';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

// Issue 42 item 5: while the operator has not set MAIL_HOST (this Atrium's default: it would be
// mail.127.0.0.1), "Set up a device" offers nothing to type into a device, and says why.

const shots = path.resolve(import.meta.dirname, '../../../screenshots/devices');

for (const width of [375, 1280] as const) {
  test(`at ${width} px Set up a device says mail is not set up on this server`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const shot = await screenshotAndAxe(page, shots, width);
    const org = await createOrganizationWithAdmin(atrium.db);
    await signInAs(await createUser(atrium.db, org.id));
    await page.goto('/application');
    await page
      .getByRole('link', { name: 'Set up mail, calendars and contacts on your phone or computer' })
      .click();
    const section = page.getByRole('region', { name: 'Set up a device' });
    await expect(
      section.getByText(
        'Mail and calendar apps on devices are not set up on this server yet: ask your administrator (the operator sets MAIL_HOST).',
      ),
    ).toBeVisible();
    await expect(section.getByLabel('Device name')).toHaveCount(0);
    await expect(section.getByRole('button', { name: 'Set up' })).toHaveCount(0);
    await shot('not-set-up', section);
  });
}
