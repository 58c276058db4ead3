import type { Page } from '@playwright/test';
import { expect, signInAsNewAdmin, test } from './support/fixtures.ts';
import { SCREENSHOTS } from './support/screenshots.ts';

// The console shell (issue 2, item 5) at the four widths of DESIGN.md, seen by the admin of an
// organisation made the way the operator command makes one (with its cloud-storage app).
const widths = [375, 768, 1000, 1280] as const;

test.beforeEach(async ({ atrium, signInAs }, testInfo) => {
  if (testInfo.tags.includes('@signed-out')) return;
  await signInAsNewAdmin(atrium, signInAs, { prefix: 'shell', name: 'Shell Ltd' });
});

const sidebar = (page: Page) => page.getByRole('complementary', { name: 'Main navigation' });
const toggle = (page: Page) => page.getByRole('button', { name: 'Navigation menu' });

for (const width of widths) {
  test.describe(`admin layout at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test('header, breadcrumbs and document title', async ({ page }) => {
      await page.goto('/dashboard');
      await expect(page.getByRole('heading', { level: 1, name: 'Admin home' })).toBeVisible();
      await expect(page).toHaveTitle('Admin home | Atrium');
      const breadcrumb = page.getByRole('navigation', { name: 'Breadcrumb' });
      await expect(breadcrumb.getByRole('link', { name: 'Home' })).toHaveAttribute('href', '/dashboard');
      await expect(breadcrumb).toContainText('Admin Console');
      await expect(breadcrumb.locator('[aria-current="page"]')).toHaveText('Admin home');

      const logo = page.getByRole('link', { name: 'Atrium admin home' });
      await expect(logo).toHaveAttribute('href', '/dashboard');
      expect((await page.getByRole('img', { name: 'Atrium' }).boundingBox())?.width).toBe(180);
      await expect(toggle(page)).toHaveAttribute('href', '#');
      await expect(page.getByTestId('header-right').getByRole('link', { name: 'Apps' })).toHaveAttribute(
        'href',
        '/application',
      );
      await expect(page.getByRole('button', { name: 'Open profile panel' })).toBeVisible();

      // Part of the header is hidden up to 575 px.
      if (width <= 575) await expect(page.getByTestId('header-org')).toBeHidden();
      else await expect(page.getByTestId('header-org')).toBeVisible();

      await page.goto('/domain');
      await expect(page).toHaveTitle('Domain | Atrium');
      await expect(breadcrumb.locator('[aria-current="page"]')).toHaveText('Domain');
    });

    if (width < 992) {
      test('the sidebar is an off-canvas drawer that closes when an item is clicked', async ({ page }) => {
        await page.goto('/dashboard');
        await expect(sidebar(page)).toBeHidden();
        // One name, and whether the menu is shown (issue 30, item 11).
        await expect(toggle(page)).toHaveAttribute('aria-expanded', 'false');
        await toggle(page).click();
        await expect(sidebar(page)).toBeVisible();
        await expect(sidebar(page)).toHaveClass(/mob-open/);
        await expect(toggle(page)).toHaveAttribute('aria-expanded', 'true');
        if (width === 375) await page.screenshot({ path: `${SCREENSHOTS}/375-menu-open.png` });
        await sidebar(page).getByRole('link', { name: 'Users' }).click();
        await expect(page).toHaveURL(/\/users$/);
        await expect(sidebar(page)).toBeHidden();
        await expect(page).toHaveTitle('Users | Atrium');
      });
    } else {
      test(`the sidebar is ${width <= 1024 ? 'collapsed automatically' : 'expanded'}`, async ({ page }) => {
        await page.goto('/dashboard');
        await expect(sidebar(page)).toBeVisible();
        const collapsed = width <= 1024;
        if (collapsed) await expect(sidebar(page)).toHaveClass(/navbar-collapsed/);
        else await expect(sidebar(page)).not.toHaveClass(/navbar-collapsed/);
        const box = await sidebar(page).boundingBox();
        expect(box?.width).toBeLessThan(collapsed ? 100 : 300);
        expect(box?.width).toBeGreaterThan(collapsed ? 50 : 200);
        // The toggle flips it; clicking an item keeps it as it is.
        await expect(toggle(page)).toHaveAttribute('aria-expanded', collapsed ? 'false' : 'true');
        await toggle(page).click();
        await expect(toggle(page)).toHaveAttribute('aria-expanded', collapsed ? 'true' : 'false');
        if (collapsed) await expect(sidebar(page)).not.toHaveClass(/navbar-collapsed/);
        else await expect(sidebar(page)).toHaveClass(/navbar-collapsed/);
        await sidebar(page).getByRole('link', { name: 'Domain' }).click();
        await expect(page).toHaveURL(/\/domain$/);
        await expect(sidebar(page)).toBeVisible();
      });
    }

    test('the search box expands and collapses', async ({ page }) => {
      await page.goto('/dashboard');
      await page.getByRole('button', { name: 'Open search' }).click();
      const input = page.getByPlaceholder('Search . . .');
      await expect(input).toBeFocused();
      const right = page.getByTestId('header-right');
      if (width < 600) {
        await expect(input).toHaveCSS('width', '100px');
        await expect(right).toBeHidden();
      } else {
        await expect(right).toBeVisible();
      }
      await page.getByRole('button', { name: 'Close search' }).click();
      await expect(input).toBeHidden();
      await expect(page.getByRole('button', { name: 'Open search' })).toBeVisible();
      await expect(right).toBeVisible();
    });

    test('the profile panel', async ({ page }) => {
      await page.goto('/dashboard');
      await page.getByRole('button', { name: 'Open profile panel' }).click();
      const panel = page.getByRole('dialog', { name: 'Profile' });
      await expect(panel).toBeVisible();
      await expect(panel.getByTestId('profile-name')).toHaveText('Ada Lovelace');
      await expect(panel.getByTestId('profile-email')).toHaveText(/^ada@shell-/);
      await expect(panel.getByRole('link', { name: 'Go to Admin Console' })).toHaveAttribute(
        'href',
        '/dashboard',
      );
      await expect(panel.getByRole('button', { name: 'My account' })).toBeVisible();
      await expect(panel.getByRole('button', { name: 'Sign out' })).toBeVisible();
      const box = await panel.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= width).toBe(true);
      await panel.getByRole('button', { name: 'Close profile panel' }).click();
      await expect(panel).toBeHidden();

      await page.getByRole('button', { name: 'Open profile panel' }).click();
      await page.getByRole('button', { name: 'My account' }).click();
      await expect(page).toHaveURL(/\/profile$/);
    });

    test('the 404 page and the catch-all', async ({ page }) => {
      await page.goto('/404');
      await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
      await expect(page).toHaveTitle('Page not found | Atrium');
      await expect(page.getByRole('link', { name: 'Back to Admin home' })).toHaveAttribute(
        'href',
        '/dashboard',
      );
      await page.goto('/no/such/page');
      await expect(page.getByRole('heading', { level: 1, name: 'Admin home' })).toBeVisible();
    });

    test('the apps layout', async ({ page }) => {
      await page.goto('/application');
      await expect(page.getByRole('heading', { name: 'Your apps' })).toBeVisible();
      await page.getByRole('button', { name: 'Notifications' }).click();
      for (const text of ['mark as read', 'clear all', 'show all']) {
        await expect(page.getByRole('button', { name: text })).toBeVisible();
      }
      await page.keyboard.press('Escape');
      const apps = page.getByRole('complementary', { name: 'Apps' });
      if (width < 992) {
        await expect(apps).toBeHidden();
        await page.getByRole('link', { name: 'Open apps menu' }).click();
      }
      const storage = apps.getByRole('link', { name: 'Cloud Storage' });
      await expect(storage).toBeVisible();
      await expect(storage).toHaveAttribute('target', '_blank');
      await expect(storage).toHaveAttribute('rel', /noopener/);
    });
  });
}

test(
  'a signed-out visitor sees the 404 page too, with a way to sign in',
  { tag: '@signed-out' },
  async ({ page }) => {
    await page.goto('/404');
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', /^\/api\/sso\/start/);
    await expect(page.getByRole('complementary', { name: 'Main navigation' })).toHaveCount(0);
  },
);

test.describe('sidebar entries', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('lead where the seed spec and PRODUCT.md say', async ({ page }) => {
    await page.goto('/dashboard');
    const expected: [string, string][] = [
      ['Admin home', '/dashboard'],
      ['organization', '/organization'],
      ['Domain', '/domain'],
      ['Users', '/users'],
      ['Groups', '/groups'],
      ['Data Migration', '/data-migration'],
      ['Mail Settings', '/mail-settings'],
      ['Subscriptions', '/subscriptions'],
      ['Apps', '/apps'],
      ['Activity', '/activity'],
    ];
    for (const [name, href] of expected) {
      await expect(sidebar(page).getByRole('link', { name, exact: true })).toHaveAttribute('href', href);
    }
    await sidebar(page).getByRole('link', { name: 'Mail Settings' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Mail Settings' })).toBeVisible();
  });
});

test.describe('router error screen', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('a route chunk that cannot load reloads once to its address, then shows the error screen', async ({
    page,
  }) => {
    await page.goto('/dashboard');
    await expect(page.getByRole('heading', { level: 1, name: 'Admin home' })).toBeVisible();
    let loads = 0;
    page.on('load', () => (loads += 1));
    await page.route(/\/assets\/groups-[^/]+\.js$/, (route) => route.abort());
    await sidebar(page).getByRole('link', { name: 'Groups' }).click();
    await expect(page.getByRole('heading', { name: 'Unexpected Application Error!' })).toBeVisible();
    await expect(page).toHaveURL(/\/groups$/);
    await expect(page.getByTestId('route-error-detail')).toContainText(
      /dynamically imported module|Importing a module script failed/,
    );
    expect(loads).toBe(1);
  });
});
