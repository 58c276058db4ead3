import path from 'node:path';
import { hashPassword } from '../../server/src/lib/passwords.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';
import { signInThroughLogin } from './support/sign-in.ts';

// Issue 38 item 4: a reset e-mail carries a link that works once, in any browser, so the owner's
// new phone can reset even when the codes others asked for keep it from getting one of its own.
const shots = path.resolve(import.meta.dirname, '../../../screenshots/password-reset-link');
const PASSWORD = 'correct horse battery staple';

for (const width of [375, 1280] as const) {
  test(`at ${width} px the link of a reset e-mail sets a new password in a browser that never asked, once`, async ({
    page,
    atrium,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db);
    const user = await createUser(atrium.db, org.id, { passwordHash: await hashPassword(PASSWORD) });
    const shot = await screenshotAndAxe(page, shots, width);

    // The request comes from somewhere else (another browser, no cookies shared with this page).
    const after = atrium.mailbox.count;
    const asked = await fetch(new URL('/api/password-reset/start', atrium.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email }),
    });
    expect(asked.status).toBe(200);
    const link = await atrium.mailbox.waitForLink(user.email, { after, subject: /password reset/ });
    expect(new URL(link).pathname).toBe('/forgot-password');

    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await expect(page.getByLabel('Code from the e-mail')).toHaveCount(0);
    await shot('choose');
    const newPassword = 'another fresh passphrase 7';
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('New password again').fill(newPassword);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect(page.getByRole('heading', { name: 'Password changed' })).toBeVisible();
    await expect(page.getByText('Your password was changed. Sign in with your new password.')).toBeVisible();
    await shot('changed');

    // The same link again: refused, and the page offers a new code.
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('a third passphrase 99');
    await page.getByLabel('New password again').fill('a third passphrase 99');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect(page.getByRole('heading', { name: 'This link cannot be used' })).toBeVisible();
    await expect(page.getByText('This reset link does not work: it was already used')).toBeVisible();
    await shot('used');
    await page.getByRole('button', { name: 'Ask for a new code' }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    await page.getByLabel('E-mail address').fill(user.email);
    await page.getByRole('button', { name: 'Send a code' }).click();
    await expect(
      page.getByText(`If an account exists for ${user.email}, we sent a code to it.`),
    ).toBeVisible();
    // What a browser the account never signed in with is told, whatever the address.
    await expect(
      page.getByText('If a reset e-mail already reached you in the last hour, its link works too.'),
    ).toBeVisible();
    await shot('code');

    await signInThroughLogin(
      page,
      atrium,
      { email: user.email, password: newPassword },
      { startAt: '/application' },
    );
    await expect(page).toHaveURL(/\/application$/);
  });
}
