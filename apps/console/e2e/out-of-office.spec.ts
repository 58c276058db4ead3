import path from 'node:path';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

// Issue 44 item 5: the Out of office card on /profile. Saved, it is what Dovecot's delivery reads
// at the next message (the reply itself is tested with the real Postfix and Dovecot in
// apps/server/test/mail/sieve.test.ts).

const shots = path.resolve(import.meta.dirname, '../../../screenshots/out-of-office');

for (const width of [375, 1280] as const) {
  test(`a user turns their out-of-office reply on and off at ${width} px (screenshots, axe)`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const shot = await screenshotAndAxe(page, shots, width);
    const org = await createOrganizationWithAdmin(atrium.db);
    const user = await createUser(atrium.db, org.id);
    await signInAs(user);
    await page.goto('/profile');
    const card = page.getByRole('region', { name: 'Out of office' });
    const status = card.getByTestId('out-of-office-status');
    await expect(status).toHaveText('Off: nobody gets an automatic reply.');
    await card.scrollIntoViewIfNeeded();
    await shot('off', card);

    // Switched on, the words are needed; the form says which.
    await card.getByLabel('Send automatic replies').check();
    await card.getByLabel('Subject').fill('');
    await card.getByRole('button', { name: 'Save out of office' }).click();
    await expect(card.getByText('Write a subject')).toBeVisible();
    await expect(card.getByText('Write the message people get')).toBeVisible();
    await shot('errors', card);

    const firstDay = await card.getByLabel('First day').inputValue();
    await card.getByLabel('Subject').fill('Away until Monday');
    await card.getByLabel('Message').fill('I am away until Monday. For anything urgent, write to Ben.');
    await card.getByRole('button', { name: 'Save out of office' }).click();
    await expect(status).toContainText('Saved. On: people who write to you get your reply until');
    await shot('on', card);

    // Kept: the page shows it again after a reload.
    await page.reload();
    await expect(card.getByLabel('Send automatic replies')).toBeChecked();
    await expect(card.getByLabel('Subject')).toHaveValue('Away until Monday');
    await expect(card.getByLabel('First day')).toHaveValue(firstDay);
    await card.getByLabel('Send automatic replies').uncheck();
    await card.getByRole('button', { name: 'Save out of office' }).click();
    await expect(status).toHaveText('Saved. Off: nobody gets an automatic reply.');
  });
}
