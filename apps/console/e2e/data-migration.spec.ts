import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';
import { insertVerifiedDomain } from './support/domains.ts';
import { SCREENSHOTS } from './support/screenshots.ts';

// Issue 16 part A: users from a CSV file, through the real console and server.
const ROWS = 1200;

function usersFile(domain: string, badRow: boolean): string {
  const lines = ['First name,Last name,E-mail,Groups'];
  for (let i = 1; i <= ROWS; i++) {
    const address = badRow && i === 3 ? `person${i}@elsewhere.test` : `person${i}@${domain}`;
    lines.push(`Person,Number ${i},${address},${i % 2 ? 'Sales' : 'Support; Sales'}`);
  }
  return lines.join('\r\n') + '\r\n';
}

test('an admin checks a file, fixes its bad row, imports it and watches the progress reach the end', async ({
  page,
  atrium,
  signInAs,
}) => {
  // Room for the whole file: 1,200 people and the admin.
  const org = await createOrganizationWithAdmin(atrium.db, {
    subscription: { planKey: 'enterprise', seats: 2000, status: 'active' },
  });
  const domain = `${org.siteName}.test`;
  await insertVerifiedDomain(atrium, org.id, domain);
  await signInAs(org.admin);

  await page.goto('/dashboard');
  await page.getByRole('link', { name: 'Data Migration' }).first().click();
  await expect(page).toHaveURL(/\/data-migration$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Data Migration' })).toBeVisible();
  await expect(page.getByText('No migration jobs yet')).toBeVisible();

  // The first file has one bad row: the dry run names it.
  await page.getByLabel('CSV file').setInputFiles({
    name: 'people.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(usersFile(domain, true)),
  });
  await page.getByRole('button', { name: 'Check the file' }).click();
  const dryRun = page.getByTestId('dry-run');
  await expect(dryRun.getByText(`Dry run: 1,200 rows read as Atrium export`)).toBeVisible();
  await expect(dryRun.getByText('To create', { exact: true }).locator('..')).toHaveText('To create1,199');
  await expect(dryRun.getByText('Errors', { exact: true }).locator('..')).toHaveText('Errors1');
  const errorRow = dryRun.getByRole('row', { name: /person3@elsewhere\.test/ });
  await expect(errorRow.getByRole('cell').first()).toHaveText('4');
  await expect(errorRow).toContainText(
    'Unknown domain: elsewhere.test is not one of your organisation’s verified domains',
  );

  // Fixed, checked again: no errors.
  await page.getByLabel('CSV file').setInputFiles({
    name: 'people.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(usersFile(domain, false)),
  });
  await page.getByRole('button', { name: 'Check the file' }).click();
  await expect(dryRun.getByText('No errors: every row can be imported.')).toBeVisible();
  const users = await atrium.db
    .selectFrom('users')
    .select('id')
    .where('organization_id', '=', org.id)
    .execute();
  expect(users).toHaveLength(1);

  await page.getByRole('button', { name: 'Import 1,200 users' }).click();
  await expect(page.getByText('The import of people.csv started.')).toBeVisible();
  const job = page.getByTestId('migration-job').first();
  await expect(job).toContainText('Users from people.csv');
  // The page polls: the bar reaches the end without a reload.
  await expect(job.getByTestId('job-progress')).toContainText('1,200 of 1,200 rows · 1,200 created', {
    timeout: 60_000,
  });
  await expect(job.getByText('Finished')).toBeVisible();
  await expect(job.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  await expect(job.getByRole('link', { name: 'Result CSV' })).toBeVisible();

  const imported = await atrium.db
    .selectFrom('users')
    .select('id')
    .where('organization_id', '=', org.id)
    .where('email', 'like', 'person%')
    .execute();
  expect(imported).toHaveLength(ROWS);
});

// Issue 30, item 11: a file over the seat limit says once how many more seats it needs, and lists
// only the rows with other errors (not 1,000 copies of the same sentence).
for (const width of [375, 1280]) {
  test(`a dry run over the seat limit says "you need N more seats" once at ${width} px`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db, {
      subscription: { planKey: 'business', seats: 200, status: 'active' },
    });
    const domain = `${org.siteName}.test`;
    await insertVerifiedDomain(atrium, org.id, domain);
    await signInAs(org.admin);
    await page.setViewportSize({ width, height: 900 });

    await page.goto('/data-migration');
    await page.getByLabel('CSV file').setInputFiles({
      name: 'people.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(usersFile(domain, true)),
    });
    await page.getByRole('button', { name: 'Check the file' }).click();
    const dryRun = page.getByTestId('dry-run');
    // 1,199 new users for 199 free seats: 1,000 more, said once.
    const seats = dryRun.getByTestId('dry-run-seats');
    await expect(seats.getByRole('heading', { name: 'You need 1,000 more seats' })).toBeVisible();
    await expect(seats).toContainText(
      'the file adds 1,199 users and 199 of the 200 seats of your Business plan are free.',
    );
    await expect(dryRun.getByText('Errors', { exact: true }).locator('..')).toHaveText('Errors1,001');
    const rows = dryRun.getByRole('region', { name: 'Rows with errors' }).getByRole('row');
    await expect(rows).toHaveCount(2); // the header and the one row with another error
    await expect(rows.nth(1)).toContainText('person3@elsewhere.test');
    // The dry run's result fits in about a screen (it was 14,340 px with a row per seat).
    expect((await dryRun.boundingBox())!.height).toBeLessThan(1000);
    await page.screenshot({ path: `${SCREENSHOTS}/${width}-dry-run-over-seats.png`, fullPage: true });
  });
}
