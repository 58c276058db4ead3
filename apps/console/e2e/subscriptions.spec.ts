import { createOrganizationWithAdmin, createUser, expect, test } from './support/fixtures.ts';
import { insertVerifiedDomain } from './support/domains.ts';
import { screenshotAndAxe } from './support/accessibility.ts';
import { SCREENSHOTS } from './support/screenshots.ts';
import { submitGraceWithPassword } from './support/add-user.ts';

// Issue 15: an admin at the seat limit raises the seats on /subscriptions and adds the user.
const PASSWORD = 'correct horse battery staple';

test('an admin at the seat limit reads the error, raises the seats and adds the user', async ({
  page,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db, {
    subscription: { planKey: 'business', seats: 2, status: 'active' },
  });
  const domain = `${org.siteName}.test`;
  await insertVerifiedDomain(atrium, org.id, domain);
  await createUser(atrium.db, org.id, { email: `uma@${domain}` });
  await signInAs(org.admin);

  // The dashboard's users card: both seats taken.
  await page.goto('/dashboard');
  await expect(page.getByTestId('stat-seats')).toContainText('2 of 2 seats used');

  const addGrace = async () => {
    await page.goto('/adduser');
    await submitGraceWithPassword(page, domain, PASSWORD);
  };

  await addGrace();
  const refusal = page.getByRole('alert').filter({ hasText: 'The user could not be added' });
  await expect(refusal).toContainText(
    'All 2 seats of your Business plan are in use (invited and suspended users hold a seat too). ' +
      'Add seats on the Subscriptions page, or delete a user first.',
  );
  await refusal.getByRole('link', { name: 'Go to Subscriptions' }).click();

  await expect(page).toHaveURL(/\/subscriptions$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Subscriptions' })).toBeVisible();
  await expect(page.getByTestId('current-plan')).toContainText('Business plan');
  await expect(page.getByTestId('seats-usage')).toContainText('2 of 2 used');
  await page.getByLabel('Number of seats').fill('3');
  await page.getByRole('button', { name: 'Update subscription' }).click();
  await page
    .getByRole('dialog', { name: 'Change to Business with 3 seats?' })
    .getByRole('button', { name: 'Change subscription' })
    .click();
  await expect(page.getByText('Your subscription is now Business with 3 seats.')).toBeVisible();
  await expect(page.getByTestId('seats-usage')).toContainText('2 of 3 used');
  await expect(page.getByRole('list', { name: 'Subscription history' })).toContainText('2 → 3 seats');

  await addGrace();
  await expect(page.getByRole('heading', { level: 1, name: 'Grace Hopper' })).toBeVisible();
  await expect(
    page.getByText('Grace Hopper was added and can sign in with the password you set.'),
  ).toBeVisible();
});

test('a downgrade below usage is refused with what to remove first', async ({ page, atrium, signInAs }) => {
  const org = await createOrganizationWithAdmin(atrium.db, {
    subscription: { planKey: 'business', seats: 5, status: 'active' },
  });
  await insertVerifiedDomain(atrium, org.id, `${org.siteName}.test`);
  await insertVerifiedDomain(atrium, org.id, `second-${org.siteName}.test`);
  await signInAs(org.admin);

  await page.goto('/subscriptions');
  await page.getByRole('radio', { name: /Free/ }).check();
  await page.getByLabel('Number of seats').fill('5');
  await page.getByRole('button', { name: 'Update subscription' }).click();
  await page.getByRole('button', { name: 'Change subscription' }).click();
  await expect(
    page
      .getByText('Delete 1 domain first: the Free plan allows 1 domain and your organisation has 2.')
      .first(),
  ).toBeVisible();
  await expect(page.getByTestId('current-plan')).toContainText('Business plan');
});

// Issue 30, item 11: a plan or seat change is confirmed with its monthly total and what changes,
// and the plan card's domains agree with Usage (the server's cap of 30 under Enterprise's 100).
for (const width of [375, 1280]) {
  test(`Enterprise with 20,000 seats asks first, with the monthly total, at ${width} px`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db, {
      subscription: { planKey: 'business', seats: 10, status: 'active' },
    });
    await insertVerifiedDomain(atrium, org.id, `${org.siteName}.test`);
    await signInAs(org.admin);
    const shot = await screenshotAndAxe(page, SCREENSHOTS, width);

    await page.goto('/subscriptions');
    await page.getByRole('radio', { name: /Enterprise/ }).check();
    await page.getByLabel('Number of seats').fill('20000');
    await page.getByRole('button', { name: 'Update subscription' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change to Enterprise with 20,000 seats?' });
    await expect(dialog.getByTestId('new-monthly-total')).toHaveText('$360,000 a month');
    await expect(dialog).toContainText('Now: $60 a month (Business, 10 seats).');
    const changes = dialog.getByRole('list', { name: 'What changes' });
    await expect(changes).toContainText('Plan: Business → Enterprise');
    await expect(changes).toContainText('Seats: 10 seats → 20,000 seats');
    await expect(changes).toContainText('Domains: 10 domains → 30 domains');
    await shot('subscription-confirm');

    // Cancel changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('current-plan')).toContainText('Business plan');

    await page.getByRole('button', { name: 'Update subscription' }).click();
    await dialog.getByRole('button', { name: 'Change subscription' }).click();
    await expect(page.getByText('Your subscription is now Enterprise with 20,000 seats.')).toBeVisible();
    await expect(page.getByTestId('current-plan')).toContainText('30 domains');
    await expect(page.getByTestId('domains-usage')).toContainText('1 of 30 used');
    await shot('subscription-changed');
  });
}
