import path from 'node:path';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

// Issue 33: on /profile a user sets up a device: an app password named after it and either an
// Apple configuration profile (one-time link and QR code) or the values to type.

const shots = path.resolve(import.meta.dirname, '../../../screenshots/devices');

// Devices are set up only once the operator names MAIL_HOST (issue 42 item 5).
test.use({ atriumEnv: { MAIL_HOST: 'mail.atrium.test' } });

for (const width of [375, 1280] as const) {
  test(`sets up an iPhone and Thunderbird at ${width} px`, async ({ page, atrium, signInAs }) => {
    const shot = await screenshotAndAxe(page, shots, width);
    const org = await createOrganizationWithAdmin(atrium.db);
    const user = await createUser(atrium.db, org.id);
    await signInAs(user);
    await page.goto('/profile');
    const section = page.getByRole('region', { name: 'Set up a device' });
    const passwords = page.getByRole('region', { name: 'App passwords for mail' });
    await expect(section.getByRole('radio', { name: 'iPhone, iPad or Mac' })).toBeChecked();
    await expect(section.getByLabel('Device name')).toHaveValue('iPhone');
    await shot('form', section);

    await section.getByLabel('Device name').fill('Ada’s iPhone');
    await section.getByRole('button', { name: 'Set up' }).click();
    const result = section.getByTestId('device-setup-result');
    await expect(
      result.getByRole('heading', { name: 'Ada’s iPhone (iPhone, iPad or Mac) is ready to set up' }),
    ).toBeVisible();
    await expect(
      result.getByRole('img', { name: /QR code of the configuration profile link/ }),
    ).toBeVisible();
    const download = result.getByRole('link', { name: 'Download the profile' });
    const href = (await download.getAttribute('href'))!;
    expect(href).toMatch(/\/api\/device-profiles\/[\w-]{32}$/);
    await expect(
      passwords.getByRole('list', { name: 'App passwords' }).getByText('Ada’s iPhone'),
    ).toBeVisible();
    await shot('apple', section);

    // The link answers the profile once; the phone that opens it needs no session.
    const profile = await page.request.get(href);
    expect(profile.status()).toBe(200);
    expect(profile.headers()['content-type']).toBe('application/x-apple-aspen-config');
    const plist = await profile.text();
    for (const type of ['com.apple.mail.managed', 'com.apple.caldav.account', 'com.apple.carddav.account']) {
      expect(plist).toContain(`<string>${type}</string>`);
    }
    expect(plist).toContain(`<string>${user.email}</string>`);
    expect((await page.request.get(href)).status()).toBe(404);

    // Thunderbird: the values to type, with the password shown once.
    await result.getByRole('button', { name: 'Done' }).click();
    await section.getByRole('radio', { name: 'Thunderbird' }).check();
    await expect(section.getByLabel('Device name')).toHaveValue('Thunderbird');
    await section.getByRole('button', { name: 'Set up' }).click();
    await expect(result.getByRole('heading', { name: 'Thunderbird is ready to set up' })).toBeVisible();
    await expect(result.getByText(/it finds the servers itself/)).toBeVisible();
    await expect(result.getByRole('textbox', { name: 'User name (e-mail address)' })).toHaveValue(user.email);
    await expect(result.getByRole('textbox', { name: 'Incoming mail (IMAP) server' })).toHaveValue(
      atrium.config.mailHost,
    );
    await expect(result.getByText('Port 993, SSL/TLS')).toBeVisible();
    await expect(result.getByText(/^Port 587, STARTTLS/)).toBeVisible();
    await expect(
      result.getByRole('textbox', { name: 'Calendar and contacts (CalDAV/CardDAV) server' }),
    ).toHaveValue(`https://${atrium.config.mailHost}/dav/`);
    expect(await result.getByRole('textbox', { name: 'Password', exact: true }).inputValue()).toMatch(
      /^[a-z2-7-]{23}$/,
    );
    await shot('thunderbird', section);

    // Revoking the device's app password is the app passwords' own revoke.
    const list = passwords.getByRole('list', { name: 'App passwords' });
    await list.getByRole('button', { name: 'Revoke app password Thunderbird' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect(list.getByText('Thunderbird')).toHaveCount(0);
    await expect(list.getByRole('listitem')).toHaveCount(1);
  });
}
