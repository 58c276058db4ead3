import { SITE_NAME_TAKEN } from '@atrium/contracts/signup';
import { expect, test } from './support/fixtures.ts';

const site = 'northwind';
const email = 'nancy@northwind.example';
const password = 'a long and unusual passphrase';

// The second visitor comes after the first has taken the site name.
test.describe.configure({ mode: 'serial' });

test('a new visitor signs up, is interrupted by a reload in the wizard, finishes and lands on the dashboard', async ({
  page,
  atrium,
}) => {
  await page.goto('/signup');
  await page.getByLabel('Organisation name').fill('Northwind Traders');
  await page.getByLabel('Site name').fill(site);
  await expect(page.getByText(`https://${site}.`)).toContainText('is available');
  await page.getByRole('button', { name: 'Continue' }).click();

  await page.getByLabel('Your work e-mail').fill(email);
  const before = atrium.mailbox.count;
  await page.getByRole('button', { name: 'Send code' }).click();
  await expect(page.getByRole('heading', { name: 'Check your e-mail' })).toBeVisible();
  const code = await atrium.mailbox.waitForCode(email, { after: before });

  // The stage is on the server: a reload comes back to the code.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Check your e-mail' })).toBeVisible();
  await page.getByLabel('Verification code').fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();

  await page.getByLabel('First name').fill('Nancy');
  await page.getByLabel('Last name').fill('Davolio');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Password again').fill(password);
  await page.getByRole('button', { name: 'Create organisation' }).click();

  // Single sign-on with the sign-in ticket, straight into the wizard.
  await expect(page).toHaveURL(/\/setup$/);
  await expect(page.getByRole('heading', { name: 'Organization profile' })).toBeVisible();
  await page.getByLabel('Legal name').fill('Northwind Traders Ltd');
  await page.getByLabel('Industry').selectOption('Retail and e-commerce');
  await page.getByLabel('Size (people)').selectOption('11-50');
  await page.getByLabel('Country').selectOption('GB');
  await page.getByLabel('Time zone').selectOption('Europe/London');
  await page.getByRole('button', { name: 'Save and continue' }).click();
  await expect(page.getByRole('heading', { name: 'Add a domain' })).toBeVisible();

  // A reload in the middle of the wizard continues from the same step.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Add a domain' })).toBeVisible();
  await page.getByLabel('Domain name').fill('northwind.example');
  await page.getByRole('button', { name: 'Add domain and continue' }).click();

  await expect(page.getByRole('heading', { name: 'Verify your domain' })).toBeVisible();
  const value = await page.getByRole('textbox', { name: 'Value' }).inputValue();
  atrium.dns.set('northwind.example', { TXT: [value] });
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await expect(page.getByText('northwind.example is verified.')).toBeVisible();
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect(page.getByRole('heading', { name: 'Add users' })).toBeVisible();
  await page.getByRole('button', { name: 'Skip for now' }).click();
  await expect(page.getByRole('heading', { name: 'Choose apps' })).toBeVisible();
  // The stepper tells a skipped step from a done one.
  const steps = page.getByRole('list', { name: 'Setup steps' }).getByRole('listitem');
  await expect(steps.filter({ hasText: 'Add users' })).toContainText('Skipped');
  await expect(steps.filter({ hasText: 'Verify your domain' })).toContainText('done');
  await expect(steps.filter({ hasText: 'Verify your domain' })).not.toContainText('Skipped');
  // On a phone every label is whole (wrapped, never cut off).
  await page.setViewportSize({ width: 375, height: 800 });
  const label = steps.getByText('Organization profile', { exact: true });
  await expect(label).toBeVisible();
  expect((await label.boundingBox())!.width).toBeGreaterThan(40);
  const cutOff = await steps.evaluateAll((items) =>
    items
      .flatMap((item) => [item, ...item.querySelectorAll('*')])
      .filter((element) => element.clientWidth > 1 && element.scrollWidth > element.clientWidth)
      .map((element) => element.textContent),
  );
  expect(cutOff).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByRole('list', { name: 'Installed apps' })).toContainText('Cloud Storage');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Finish and go to the admin home' }).click();

  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { name: 'Admin home' })).toBeVisible();
  // The skipped step stays on the checklist; the counts are this organisation's.
  await expect(page.getByTestId('setup-checklist')).toContainText('Add users');
  await expect(page.getByTestId('stat-domains')).toContainText('1 verified');
  await expect(page.getByTestId('stat-users')).toContainText('1 active');

  // Signed in again later, the admin lands on the dashboard, not the wizard.
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Admin home' })).toBeVisible();
});

test('the next visitor asking for the same site name is told it is taken', async ({ browser, atrium }) => {
  const context = await browser.newContext({ baseURL: atrium.url });
  const page = await context.newPage();
  await page.goto('/signup');
  await page.getByLabel('Organisation name').fill('Northwind Again');
  await page.getByLabel('Site name').fill(site);
  await expect(page.getByText(SITE_NAME_TAKEN)).toBeVisible();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText(SITE_NAME_TAKEN)).toBeVisible();
  await expect(page.getByLabel('Site name')).toHaveClass(/is-invalid/);
  await context.close();
});
