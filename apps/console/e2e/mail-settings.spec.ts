import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';
import { insertVerifiedDomain } from './support/domains.ts';

// Issue 14: Mail Settings says, per verified domain, whether its mail records are published, and
// that mail is not set up on a deployment without the mail servers.

test('an admin sees whether mail works for each domain and checks again after publishing', async ({
  page,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const name = `mail-${Date.now().toString(36)}.example`;
  const domain = await insertVerifiedDomain(atrium, org.id, name, { token: 'mailsettings', primary: true });
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

test('the mail plan lists every mailbox with its usage, 50 at a time, and says when the mail servers last asked', async ({
  page,
  atrium,
  signInAs,
}, testInfo) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const tag = Date.now().toString(36);
  await atrium.db
    .insertInto('users')
    .values(
      Array.from({ length: 52 }, (_, i) => ({
        organization_id: org.id,
        email: `box${String(i).padStart(2, '0')}-${tag}@boxes.example`,
        first_name: 'Box',
        last_name: String(i),
        name_key: `box ${i}`,
      })),
    )
    .execute();
  const [full, some] = await Promise.all(
    [`box00-${tag}@boxes.example`, `box01-${tag}@boxes.example`].map((email) =>
      atrium.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow(),
    ),
  );
  await atrium.db
    .insertInto('mailbox_usage')
    .values([
      { user_id: some!.id, organization_id: org.id, storage_bytes: 1536 * 1024, messages: 12 },
      { user_id: full!.id, organization_id: org.id, storage_bytes: 96 * 1024 ** 3, messages: 40_000 },
    ])
    .execute();
  // This deployment has no Postfix or Dovecot; the page is shown as a mail host's would be, with
  // Dovecot quiet for 20 minutes (the server's own answer otherwise).
  await page.route('**/api/mail/domains', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    await route.fulfill({
      response,
      json: {
        ...body,
        mailConfigured: true,
        mailServers: {
          postfixLastAskedAt: new Date(Date.now() - 2 * 60_000).toISOString(),
          dovecotLastAskedAt: new Date(Date.now() - 20 * 60_000).toISOString(),
        },
      },
    });
  });
  await signInAs(org.admin);
  await page.goto('/mail-settings');

  const servers = page.getByTestId('mail-servers');
  await expect(servers.getByText('Postfix last asked Atrium 2 minutes ago')).toBeVisible();
  await expect(servers.getByText('Dovecot last asked Atrium 20 minutes ago')).toBeVisible();
  await expect(servers.getByText(/Dovecot .* has not asked Atrium for over 15 minutes/)).toBeVisible();
  await expect(servers.getByText(/^Postfix \(.*has not asked/)).toHaveCount(0);

  const plan = page.getByRole('region', { name: 'Mail plan' });
  const list = plan.getByRole('list', { name: 'Mailboxes' });
  await expect(list.getByRole('listitem')).toHaveCount(50);
  const second = list.getByRole('listitem', { name: `box01-${tag}@boxes.example` });
  await expect(second.getByText(/^1\.5 MB of .* · 12 messages$/)).toBeVisible();
  // The plan's 100 GB: 1.5 MB is under one percent; the fullest mailbox stands out.
  await expect(second.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '0');
  const first = list.getByRole('listitem', { name: `box00-${tag}@boxes.example` });
  await expect(first.getByText(/^96 GB of 100 GB · 40,000 messages$/)).toBeVisible();
  await expect(first.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '96');
  await expect(first.getByRole('progressbar')).toBeVisible();
  await expect(
    list.getByRole('listitem', { name: `box02-${tag}@boxes.example` }).getByText('Nothing reported yet'),
  ).toBeVisible();

  for (const width of [375, 768, 1000, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: testInfo.outputPath(`mail-settings-${width}.png`) });
    await plan.getByRole('heading', { name: 'Mailboxes' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: testInfo.outputPath(`mail-settings-${width}-mailboxes.png`) });
  }

  await plan.getByRole('button', { name: 'Show more' }).click();
  // 52 users and the admin: every mailbox once, and no more pages.
  await expect(list.getByRole('listitem')).toHaveCount(53);
  await expect(plan.getByRole('button', { name: 'Show more' })).toHaveCount(0);
});
