import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { SCREENSHOTS } from './support/screenshots.ts';
import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';

test('an admin adds a domain, verifies it through DNS, sees its DNS mapping and cannot delete it while a user uses it', async ({
  page,
  context,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  await signInAs(org.admin);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: atrium.url });
  const name = `shop-${randomBytes(3).toString('hex')}.example`;

  await page.goto('/domain');
  await expect(page.getByRole('heading', { name: 'No domains yet' })).toBeVisible();
  await page.getByRole('link', { name: 'Add a domain' }).first().click();

  // A bad name is refused beside the field, in words.
  const field = page.getByLabel('Domain name');
  await field.fill('exa mple.com');
  await page.getByRole('button', { name: 'Add domain' }).click();
  await expect(page.getByText('A domain name cannot contain spaces')).toBeVisible();

  // Upper case and a trailing dot are normalised away.
  await field.fill(`${name.toUpperCase()}.`);
  await page.getByRole('button', { name: 'Add domain' }).click();
  await expect(page).toHaveURL(/\/d-verify\?id=/);
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();

  // The TXT record: host, type and value, each with a copy button that says it copied.
  await expect(page.getByRole('textbox', { name: 'Host (name)' })).toHaveValue(name);
  await expect(page.getByRole('textbox', { name: 'Type' })).toHaveValue('TXT');
  const value = await page.getByRole('textbox', { name: 'Value', exact: true }).inputValue();
  expect(value).toMatch(/^atrium-verification=[a-z2-7]{32}$/);
  await page.getByRole('button', { name: 'Copy TXT record value' }).click();
  await expect(page.getByRole('button', { name: 'Copy TXT record value' })).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);

  // Before the record exists: the "not found yet" outcome.
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'No TXT record found yet' })).toBeVisible();
  await expect(page.getByText('DNS changes can take time to propagate')).toBeVisible();

  // The admin publishes the record (here: in the loopback DNS server) and verifies.
  atrium.dns.set(name, { TXT: [value] });
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Domain verified' })).toBeVisible();
  await expect(page.getByText('Verified', { exact: true })).toBeVisible();

  // The DNS mapping: every record expected against what DNS holds.
  const mapping = page.getByRole('list', { name: 'DNS records' });
  await expect(mapping.getByRole('listitem')).toHaveCount(14);
  // MTA-STS and TLS reporting (docs/mail.md): the policy's id, its host, where reports go.
  const mtaSts = mapping
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: 'MTA-STS (TXT)' }) });
  await expect(mtaSts.getByText(`_mta-sts.${name}`)).toBeVisible();
  await expect(mtaSts.getByText(/^v=STSv1; id=[0-9a-f]{20}$/)).toBeVisible();
  await mtaSts.screenshot({ path: path.join(SCREENSHOTS, 'domain-mapping-mta-sts-record.png') });
  const reports = mapping
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: 'TLS reports (TXT)' }) });
  await expect(reports.getByText(`v=TLSRPTv1; rua=mailto:postmaster@${name}`)).toBeVisible();
  // Device discovery's SRV records, with their four parts as DNS panels ask for them.
  const imaps = mapping
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: 'IMAP server (SRV)' }) });
  await expect(imaps.getByText(`_imaps._tcp.${name}`)).toBeVisible();
  await expect(imaps.getByText('As fields')).toBeVisible();
  await imaps.screenshot({ path: path.join(SCREENSHOTS, 'domain-mapping-srv-record.png') });
  const mx = mapping
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: 'Mail exchanger (MX)' }) });
  await expect(mx.getByText('Missing')).toBeVisible();
  await expect(mx.getByText(`10 ${atrium.config.mailHost}`)).toBeVisible();
  atrium.dns.set(name, { TXT: [value], MX: [{ exchange: atrium.config.mailHost, priority: 10 }] });
  await page.getByRole('button', { name: 'Check all records now' }).click();
  await expect(mx.getByText('OK', { exact: true })).toBeVisible();
  await expect(page.getByText('1 of 14 records in place')).toBeVisible();
  // The DKIM key is longer than one TXT string: shown whole, with what to do if a DNS host refuses
  // it (the zone file splits it: domain-zone-file.spec.ts).
  const dkim = mapping.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'DKIM key' }) });
  const dkimValue = (await dkim
    .locator('code')
    .filter({ hasText: /^v=DKIM1; k=rsa; p=/ })
    .textContent())!;
  expect(dkimValue.length).toBeGreaterThan(255);
  await expect(
    dkim.getByText(/^Some DNS hosts limit a text value to 255 characters: paste it whole/),
  ).toBeVisible();
  await expect(dkim.getByText(/^"v=DKIM1/)).toHaveCount(0);

  // In the list: verified and primary.
  await page.goto('/domain');
  const row = page.getByRole('row').filter({ hasText: name });
  await expect(row.getByText('Verified', { exact: true })).toBeVisible();
  await expect(row.getByText('Primary')).toBeVisible();

  // A user's address uses the domain: deletion is refused and names the user.
  await createUser(atrium.db, org.id, { email: `grace@${name}`, firstName: 'Grace', lastName: 'Hopper' });
  await row.getByRole('button', { name: `Delete ${name}` }).click();
  const dialog = page.getByRole('dialog', { name: `Delete ${name}?` });
  await expect(dialog.getByRole('heading', { name: 'This domain cannot be deleted now' })).toBeVisible();
  await expect(
    dialog.getByText(`${name} cannot be deleted while a user’s address uses it: grace@${name}.`),
  ).toBeVisible();
  await expect(
    dialog.getByRole('list', { name: 'Users whose addresses use this domain' }).getByRole('listitem'),
  ).toHaveText([`grace@${name} — Grace Hopper`]);
  await expect(dialog.getByRole('button', { name: 'Delete domain' })).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('row').filter({ hasText: name })).toBeVisible();
});
