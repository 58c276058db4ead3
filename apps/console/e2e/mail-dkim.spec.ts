import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';
import { insertVerifiedDomain } from './support/domains.ts';

// Issue 14: rotating a domain's DKIM key on Mail Settings. The new selector is published beside
// the old one, signing switches to it after a confirmation, and the old one is retired after another.

test('an admin rotates a domain’s DKIM key: new key, switch, retire', async ({
  page,
  atrium,
  signInAs,
}, testInfo) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const name = `dkim-${Date.now().toString(36)}.example`;
  await insertVerifiedDomain(atrium, org.id, name, { token: 'dkimrotation', primary: true });
  await signInAs(org.admin);
  await page.goto('/mail-settings');
  const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, level: 2 }) });
  const section = card.getByRole('region', { name: 'DKIM signing' });
  await expect(section.getByText(`Mail from ${name} is signed with the key atrium.`)).toBeVisible();

  await section.getByRole('button', { name: 'Rotate key' }).click();
  await expect(section.getByText(/New key atrium2, made/)).toBeVisible();
  // Both keys are published while the rotation runs.
  await expect(card.getByText('DKIM key (atrium)', { exact: true })).toBeVisible();
  await expect(card.getByText('DKIM key (atrium2)', { exact: true })).toBeVisible();
  for (const width of [375, 768, 1000, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await section.scrollIntoViewIfNeeded();
    await card.screenshot({ path: testInfo.outputPath(`mail-dkim-${width}.png`) });
  }

  await section.getByRole('button', { name: 'Switch to atrium2' }).click();
  const switchDialog = page.getByRole('dialog', { name: `Sign ${name}'s mail with atrium2?` });
  await expect(switchDialog).toContainText('publish it first');
  await expect(switchDialog).toContainText('DNS does not hold the new key’s record yet');
  await switchDialog.getByRole('button', { name: 'Switch key' }).click();
  await expect(switchDialog).toBeHidden();
  await expect(section.getByText(`Mail from ${name} is signed with the key atrium2.`)).toBeVisible();
  await expect(section.getByText(/The old key atrium is still published/)).toBeVisible();

  // Cancelling the retirement changes nothing.
  await section.getByRole('button', { name: 'Retire atrium' }).click();
  const retireDialog = page.getByRole('dialog', { name: 'Retire the DKIM key atrium?' });
  await retireDialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(retireDialog).toBeHidden();
  await expect(card.getByText('DKIM key (atrium)', { exact: true })).toBeVisible();

  await section.getByRole('button', { name: 'Retire atrium' }).click();
  await retireDialog.getByRole('button', { name: 'Retire key' }).click();
  await expect(retireDialog).toBeHidden();
  await expect(card.getByText('DKIM key (atrium)', { exact: true })).toBeHidden();
  await expect(card.getByText('DKIM key (atrium2)', { exact: true })).toBeVisible();
  await expect(section.getByRole('button', { name: 'Rotate key' })).toBeVisible();
});
