import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';

// Issue 42 items 7 and 10 in the real console: the Calendar & Contacts entry in plain words with
// no tile to a dead address, the sidebar's "Domain" (the seed spec's label), the "Cancelled" badge's contrast, and the
// header search finding "Export everything".
const shots = path.resolve(import.meta.dirname, '../../../screenshots/issue-42-wording');

/** WCAG contrast ratio of two opaque `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (rgb: string) => {
    const [r, g, b2] = rgb
      .match(/\d+(\.\d+)?/g)!
      .slice(0, 3)
      .map(Number)
      .map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b2;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const sidebar = (page: Page) => page.getByRole('complementary', { name: 'Main navigation' });

for (const width of [375, 1280] as const) {
  test(`at ${width} px Calendar & Contacts is built in: Set up a device, the web calendar under Advanced, no tile`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db);
    const shot = await screenshotAndAxe(page, shots, width);
    await signInAs(org.admin);

    await page.goto('/apps/catalog');
    const card = page
      .getByRole('list', { name: 'Available apps' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Calendar & Contacts' }) });
    await expect(card.getByText('Built in')).toBeVisible();
    await expect(card).toContainText(
      'Everyone gets calendars and contacts on their phones and computers; nothing to install.',
    );
    await expect(card.getByRole('link', { name: 'Install Calendar & Contacts' })).toHaveCount(0);
    await expect(card.getByRole('link', { name: 'Set up a device' })).toHaveAttribute(
      'href',
      '/profile/devices',
    );
    await shot('catalog-card', card);

    await card.getByRole('link', { name: 'How Calendar & Contacts works' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Calendar & Contacts' })).toBeVisible();
    await expect(page).toHaveTitle('Calendar & Contacts | Atrium');
    const main = page.getByRole('main');
    await expect(main).toContainText('Each person opens Profile → Set up a device');
    await expect(main).not.toContainText(/docs\/|Bearer/);
    // The web calendar's form and OIDC values wait under "Advanced".
    const advanced = page.locator('details', {
      has: page.getByText('Advanced: a web calendar that signs people in with Atrium'),
    });
    await expect(advanced.getByLabel('Launch URL')).toBeHidden();
    await shot('entry');
    await advanced.locator('summary').click();
    await expect(advanced.getByLabel('Launch URL')).toBeVisible();
    await expect(advanced).toContainText('OIDC_ISSUER=');
    await shot('entry-advanced');

    await page.getByRole('link', { name: 'Set up a device' }).click();
    await expect(page).toHaveURL(/\/profile\/devices$/);

    // People's apps page: no Calendar tile (nothing installed), the link to Set up a device instead.
    await page.goto('/application');
    await expect(page.getByRole('heading', { level: 1, name: 'Your apps' })).toBeVisible();
    await expect(page.getByRole('link', { name: /Calendar & Contacts/ })).toHaveCount(0);
    await expect(
      page.getByRole('link', { name: 'Set up mail, calendars and contacts on your phone or computer' }),
    ).toBeVisible();
    await shot('apps-page');
  });

  test(`at ${width} px the sidebar says Domain, a cancelled import's badge is readable, and search finds Export everything`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db);
    const shot = await screenshotAndAxe(page, shots, width);
    await signInAs(org.admin);
    await atrium.db
      .insertInto('user_imports')
      .values({
        organization_id: org.id,
        file_name: 'people.csv',
        format: 'atrium',
        status: 'cancelled',
        // Listed once its upload finished, i.e. once it has a job (none runs for this one).
        job_id: randomUUID(),
        total_rows: 3,
        started_by_label: 'Ada Lovelace',
        created_at: new Date(),
        finished_at: new Date(),
      })
      .execute();

    await page.goto('/domain');
    await expect(page.getByRole('heading', { level: 1, name: 'Domains' })).toBeVisible();
    await expect(page).toHaveTitle('Domain | Atrium');
    if (width < 992) await page.getByRole('button', { name: 'Navigation menu' }).click();
    // The seed spec's sidebar label, word for word; the page's heading names what it lists.
    await expect(sidebar(page).getByRole('link', { name: 'Domain', exact: true })).toBeVisible();
    await shot('sidebar', sidebar(page));
    if (width < 992) await page.keyboard.press('Escape');

    await page.goto('/data-migration');
    const badge = page.getByText('Cancelled', { exact: true });
    await expect(badge).toBeVisible();
    const colours = await badge.evaluate((el) => {
      const style = getComputedStyle(el);
      return { color: style.color, background: style.backgroundColor };
    });
    expect(colours.background).toBe('rgb(255, 193, 7)');
    // WCAG AA for its small text: 4.5:1 at least (white on this yellow was 1.63:1).
    expect(contrast(colours.color, colours.background)).toBeGreaterThanOrEqual(4.5);
    await shot('cancelled-badge', page.getByTestId('migration-job').filter({ has: badge }));

    await page.getByRole('button', { name: 'Open search' }).click();
    await page.getByRole('search').getByRole('combobox').fill('export');
    const pages = page.getByRole('group', { name: 'Pages' });
    await expect(pages.getByRole('option')).toHaveText(['Export everything', 'Users']);
    await shot('search-export');
    await pages.getByRole('option', { name: 'Export everything' }).click();
    await expect(page).toHaveURL(/\/data-migration#export-everything$/);
    await expect(page.getByRole('heading', { name: 'Export everything' })).toBeInViewport();
  });
}
