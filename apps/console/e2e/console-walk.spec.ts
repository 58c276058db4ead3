import { sql } from 'kysely';
import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';
import { SCREENSHOTS } from './support/screenshots.ts';

// Issue 30, item 11: the console as an admin walked it at 375 and 1280 px.

for (const width of [375, 1280]) {
  test(`installing an app from the setup wizard comes back to the wizard at ${width} px`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db);
    // The wizard at its "Choose apps" step, the steps before it done.
    await sql`insert into organization_setup (organization_id, current_step, done_steps, skipped_steps)
      values (${org.id}, 'apps', '{profile,domain,verify,users}'::text[], '{}'::text[])`.execute(atrium.db);
    await signInAs(org.admin);
    await page.setViewportSize({ width, height: 900 });

    await page.goto('/setup');
    await expect(page.getByRole('heading', { name: 'Choose apps' })).toBeVisible();
    await page
      .getByRole('list', { name: 'Apps you can install' })
      .getByRole('link', { name: 'Install Wiki' })
      .click();
    await expect(page.getByRole('heading', { level: 1, name: 'Install Wiki' })).toBeVisible();
    await page.getByLabel('Launch URL').fill('https://wiki.example.com/');
    await page.getByLabel('Redirect URI 1', { exact: true }).fill('https://wiki.example.com/callback');
    await page.getByRole('button', { name: 'Install' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Wiki is installed' })).toBeVisible();
    await page.screenshot({ path: `${SCREENSHOTS}/${width}-app-installed-from-setup.png` });

    await page.getByRole('link', { name: 'Back to setup' }).click();
    await expect(page).toHaveURL(/\/setup$/);
    await expect(page.getByRole('heading', { name: 'Choose apps' })).toBeVisible();
    await expect(page.getByRole('list', { name: 'Installed apps' })).toContainText('Wiki');
  });
}
