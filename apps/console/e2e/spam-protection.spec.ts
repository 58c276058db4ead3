import path from 'node:path';
import { screenshotAndAxe } from './support/accessibility.ts';
import { insertVerifiedDomain } from './support/domains.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

// Issue 44 item 3: Mail Settings' spam protection (sensitivity, greylisting, the organisation's
// allow and block lists, the plan's sending limits) and a person's own lists on /profile. What
// rspamd does with them is tested with the real rspamd in
// apps/server/test/mail-protection/rspamd-policy.test.ts.

const shots = path.resolve(import.meta.dirname, '../../../screenshots/spam-protection');

for (const width of [375, 1280] as const) {
  test(`an admin sets spam protection and a person blocks a sender at ${width} px (screenshots, axe)`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const shot = await screenshotAndAxe(page, shots, width);
    const org = await createOrganizationWithAdmin(atrium.db);
    const name = `spam-${width}-${Date.now().toString(36)}.example`;
    await insertVerifiedDomain(atrium, org.id, name, { token: `spam${width}`, primary: true });
    await signInAs(org.admin);
    await page.goto('/mail-settings');
    const card = page.getByRole('region', { name: 'Spam protection' });
    await expect(card.getByLabel(/^Standard/)).toBeChecked();
    await expect(card.getByLabel(/^Greylisting/)).toBeChecked();
    await expect(card.getByText(/Each person may send to [\d,]+ recipients an hour/)).toBeVisible();

    await card.getByLabel(/^Strict/).check();
    await card.getByLabel(/^Greylisting/).uncheck();
    await card.getByRole('button', { name: 'Save' }).click();
    await expect(card.getByText('Saved.')).toBeVisible();

    const senders = card.getByRole('form', { name: 'Allow or block a sender' });
    await senders.getByLabel('Address or domain').fill('partner.example');
    await senders.getByRole('button', { name: 'Allow' }).click();
    await expect(
      card.getByRole('list', { name: 'Allowed senders' }).getByText('partner.example'),
    ).toBeVisible();
    await senders.getByLabel('Address or domain').fill('offers@shop.example');
    await senders.getByRole('button', { name: 'Block' }).click();
    await expect(
      card.getByRole('list', { name: 'Blocked senders' }).getByText('offers@shop.example'),
    ).toBeVisible();
    // A sender is on one list only; the refusal says where it is.
    await senders.getByLabel('Address or domain').fill('partner.example');
    await senders.getByRole('button', { name: 'Block' }).click();
    await expect(senders.getByText('partner.example is already on the allowed senders')).toBeVisible();
    await card.scrollIntoViewIfNeeded();
    await shot('mail-settings', card);

    // Kept after a reload; removing takes the sender off.
    await page.reload();
    await expect(card.getByLabel(/^Strict/)).toBeChecked();
    await expect(card.getByLabel(/^Greylisting/)).not.toBeChecked();
    await card.getByRole('button', { name: 'Remove offers@shop.example from the blocked senders' }).click();
    await expect(card.getByText('No blocked senders yet.')).toBeVisible();

    // A person's own lists, on their profile.
    const person = await createUser(atrium.db, org.id, { email: `ann@${name}` });
    await signInAs(person);
    await page.goto('/profile');
    const own = page.getByRole('region', { name: 'Allowed and blocked senders' });
    await own.getByLabel('Address or domain').fill('newsletter@store.example');
    await own.getByRole('button', { name: 'Block' }).click();
    await expect(
      own.getByRole('list', { name: 'Blocked senders' }).getByText('newsletter@store.example'),
    ).toBeVisible();
    await own.scrollIntoViewIfNeeded();
    await shot('profile', own);
  });
}
