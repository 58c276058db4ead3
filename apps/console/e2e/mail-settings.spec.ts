import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';

// Issue 14: Mail Settings says, per verified domain, whether its mail records are published, and
// that mail is not set up on a deployment without the mail servers.

test('an admin sees whether mail works for each domain and checks again after publishing', async ({
  page,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const name = `mail-${Date.now().toString(36)}.example`;
  const domain = await atrium.db
    .insertInto('domains')
    .values({
      organization_id: org.id,
      name,
      state: 'verified',
      is_primary: true,
      verified_at: new Date(),
      verification_token: 'mailsettings'.padEnd(32, 'x'),
      dkim_private_key_enc: 'sealed',
      dkim_public_key: 'public',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await signInAs(org.admin);
  await page.goto('/dashboard');
  await page.getByRole('link', { name: 'Mail Settings' }).click();
  await expect(page).toHaveURL(/\/mail-settings$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Mail Settings' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Mail is not set up on this deployment' })).toBeVisible();

  const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name }) });
  await expect(card.getByText('Records to publish', { exact: true })).toBeVisible();
  const mx = card.getByRole('listitem').filter({ hasText: 'Mail exchanger (MX)' });
  await expect(mx.getByText('Missing')).toBeVisible();

  atrium.dns.set(name, { MX: [{ exchange: atrium.config.mailHost, priority: 10 }] });
  await page.getByRole('button', { name: 'Check again' }).click();
  await expect(mx.getByText('OK', { exact: true })).toBeVisible();
  await expect(card.getByRole('listitem').filter({ hasText: 'SPF' }).getByText('Missing')).toBeVisible();

  await card.getByRole('link', { name: `The records to publish for ${name}` }).click();
  await expect(page).toHaveURL(new RegExp(`/d-verify\\?id=${domain.id}$`));
});
