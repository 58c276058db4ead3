import path from 'node:path';
import type { Page } from '@playwright/test';
import { insertPasskey } from '../../server/src/modules/auth/factors/passkeys/passkeys.repository.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect, test, type Atrium } from './support/fixtures.ts';

// Issue 30, item 10: on /users/:id the admin sees the user's passkeys, authenticator app and
// trusted browsers, and removes one of them after a confirmation; the user is e-mailed.
const shots = path.resolve(import.meta.dirname, '../../../screenshots/user-factors');

/** A user with two passkeys, an authenticator app (with its ten codes) and a trusted browser. */
async function userWithFactors(atrium: Atrium, organizationId: string) {
  const user = await createUser(atrium.db, organizationId, { firstName: 'Grace', lastName: 'Hopper' });
  const owner = { organizationId, userId: user.id };
  for (const name of ['Work laptop', 'Phone']) {
    await insertPasskey(atrium.db, owner, {
      credentialId: `${user.id}-${name}`,
      publicKey: 'key',
      counter: 0,
      transports: ['internal'],
      backupEligible: false,
      backedUp: false,
      name,
    });
  }
  await atrium.db
    .insertInto('authenticator_apps')
    .values({
      organization_id: organizationId,
      user_id: user.id,
      secret_sealed: 'sealed',
      confirmed_at: new Date(),
    })
    .execute();
  await atrium.db
    .insertInto('recovery_codes')
    .values(
      Array.from({ length: 10 }, (_, i) => ({
        organization_id: organizationId,
        user_id: user.id,
        code_hash: `${user.id}-${i}`,
      })),
    )
    .execute();
  await atrium.db
    .insertInto('trusted_browsers')
    .values({
      organization_id: organizationId,
      user_id: user.id,
      device_hash: `device-${user.id}`,
      user_agent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      trusted_until: new Date(Date.now() + 30 * 86_400_000),
    })
    .execute();
  return user;
}

const card = (page: Page) =>
  page.locator('.card').filter({ has: page.getByRole('heading', { name: 'Sign-in factors' }) });

for (const width of [375, 1280] as const) {
  test(`at ${width} px the admin sees a user's factors and removes a passkey, the app and a trusted browser`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db);
    const shot = await screenshotAndAxe(page, shots, width);
    const user = await userWithFactors(atrium, org.id);
    await signInAs(org.admin);
    await page.goto(`/users/${user.id}`);
    const factors = card(page);
    await expect(factors.getByText('Work laptop', { exact: true })).toBeVisible();
    await expect(factors.getByText('Phone', { exact: true })).toBeVisible();
    await expect(factors.getByText('Safari on macOS', { exact: true })).toBeVisible();
    await expect(factors.getByText('Recovery codes left: 10 of 10.')).toBeVisible();
    await factors.scrollIntoViewIfNeeded();
    await shot('card', factors);

    // A passkey: asked first, then removed, and the user is told.
    const after = atrium.mailbox.count;
    await factors.getByRole('button', { name: 'Remove passkey Work laptop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the passkey “Work laptop” of Grace Hopper?' });
    await expect(dialog).toBeVisible();
    await shot('remove-passkey-dialog');
    await dialog.getByRole('button', { name: 'Remove passkey' }).click();
    await expect(dialog).toBeHidden();
    await expect(
      factors.getByText(`The passkey “Work laptop” was removed. ${user.email} was told by e-mail.`),
    ).toBeVisible();
    await expect(factors.getByText('Work laptop', { exact: true })).toHaveCount(0);
    await atrium.mailbox.waitFor(user.email, { subject: /^A passkey was removed/, after });

    // Cancel leaves the app; confirming removes it.
    await factors.getByRole('button', { name: 'Remove authenticator app' }).click();
    const appDialog = page.getByRole('dialog', { name: 'Remove the authenticator app of Grace Hopper?' });
    await appDialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(appDialog).toBeHidden();
    await factors.getByRole('button', { name: 'Remove authenticator app' }).click();
    await appDialog.getByRole('button', { name: 'Remove app' }).click();
    await expect(
      factors.getByText(`The authenticator app was removed. ${user.email} was told by e-mail.`),
    ).toBeVisible();
    await expect(factors.getByRole('button', { name: 'Remove authenticator app' })).toHaveCount(0);

    await factors.getByRole('button', { name: /^Stop trusting browser 1/ }).click();
    const browserDialog = page.getByRole('dialog', {
      name: 'Stop trusting Safari on macOS for Grace Hopper?',
    });
    await shot('stop-trusting-dialog');
    await browserDialog.getByRole('button', { name: 'Stop trusting' }).click();
    await expect(
      factors.getByText(`Safari on macOS is no longer trusted. ${user.email} was told by e-mail.`),
    ).toBeVisible();
    // The phone's passkey is left, so the recovery codes stay.
    await expect(factors.getByText('Recovery codes left: 10 of 10.')).toBeVisible();
    await page.mouse.move(0, 0);
    await shot('card-after', factors);
  });
}

// Issue 38: the reset may also revoke the user's app passwords (a lost phone usually holds one);
// the dialog offers it, off by default, and says what it means for their devices.
for (const width of [375, 1280] as const) {
  test(`at ${width} px the admin resets a user's factors and also revokes their app passwords`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db);
    const shot = await screenshotAndAxe(page, shots, width);
    const user = await userWithFactors(atrium, org.id);
    await atrium.db
      .insertInto('app_passwords')
      .values(
        ['Phone', 'Laptop mail'].map((name) => ({
          organization_id: org.id,
          user_id: user.id,
          name,
          lookup: 'abcd',
          password_hash: 'not-a-hash',
        })),
      )
      .execute();
    await signInAs(org.admin);
    await page.goto(`/users/${user.id}`);
    const factors = card(page);
    await factors.getByRole('button', { name: 'Reset sign-in factors' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reset the sign-in factors of Grace Hopper?' });
    const revoke = dialog.getByRole('checkbox', { name: 'Also revoke their app passwords' });
    await expect(revoke).not.toBeChecked();
    await expect(dialog.getByText(/must be set up again with a new app password/)).toBeVisible();
    await revoke.check();
    await shot('reset-dialog');

    const after = atrium.mailbox.count;
    await dialog.getByRole('button', { name: 'Reset sign-in factors' }).click();
    await expect(dialog).toBeHidden();
    await expect(
      factors.getByText(
        `The sign-in factors were reset and the app passwords revoked. ${user.email} was told by e-mail.`,
      ),
    ).toBeVisible();
    const mail = await atrium.mailbox.waitFor(user.email, { subject: /^An administrator reset/, after });
    expect(mail.text).toContain('Your app passwords were revoked too');
    const left = await atrium.db
      .selectFrom('app_passwords')
      .select('name')
      .where('user_id', '=', user.id)
      .execute();
    expect(left).toEqual([]);

    // The activity log says so, in its own line.
    await page.goto('/activity');
    await expect(page.getByText('User app passwords revoked').locator('visible=true').first()).toBeVisible();
    await expect(page.getByText('User sign in factors reset').locator('visible=true').first()).toBeVisible();
  });
}
