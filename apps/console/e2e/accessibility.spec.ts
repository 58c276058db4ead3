import type { Page } from '@playwright/test';
import { axe } from './support/accessibility.ts';
import { createGroup, installBody } from '../../server/test/apps/helpers.ts';
import { signInAs as sessionFor } from '../../server/test/support/fixtures.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  expect,
  test,
  type Atrium,
  type TestUser,
} from './support/fixtures.ts';

// Issue 13, item 5: every screen, at a phone's width and a desktop's, with no serious or critical
// axe-core violation (WCAG 2.1 AA rules and axe's best practices).
const widths = [375, 1280] as const;

type Screen = { name: string; url: string; open?: (page: Page) => Promise<void> };

interface Found {
  screen: string;
  rule: string;
  impact: string;
  help: string;
  nodes: string[];
}

/** Runs axe on the page as it is now; returns the serious and critical violations. */
async function seriousViolations(page: Page, screen: string): Promise<Found[]> {
  const { violations } = await axe(page).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      screen,
      rule: v.id,
      impact: v.impact!,
      help: v.help,
      nodes: v.nodes.map(
        (n) => `${n.target.join(' ')}\n        ${n.failureSummary?.replace(/\n/g, '\n        ')}`,
      ),
    }));
}

const readable = (found: Found[]) =>
  found
    .map(
      (f) =>
        `${f.screen}: [${f.impact}] ${f.rule}: ${f.help}\n${f.nodes.map((n) => `      ${n}`).join('\n')}`,
    )
    .join('\n');

/** Opens each screen, waits until it has shown its data, and collects what axe finds. */
async function audit(page: Page, screens: Screen[]): Promise<Found[]> {
  const found: Found[] = [];
  for (const screen of screens) {
    await page.goto(screen.url);
    await page.waitForLoadState('networkidle');
    await expect(page.locator('h1').first()).toBeVisible();
    await screen.open?.(page);
    found.push(...(await seriousViolations(page, screen.name)));
  }
  return found;
}

/** An organisation with a little of everything: people, a group, a domain and an installed app. */
async function populatedOrganization(atrium: Atrium) {
  const org = await createOrganizationWithAdmin(atrium.db);
  const member = await createUser(atrium.db, org.id, { firstName: 'Grace', lastName: 'Hopper' });
  await createUser(atrium.db, org.id, { firstName: 'Alan', lastName: 'Turing' });
  await createGroup(atrium.db, org.id, 'Engineering', [member.id]);
  const session = await sessionFor(atrium.db, org.admin);
  const post = async (url: string, payload: object) => {
    const res = await atrium.app.inject({ method: 'POST', url, payload, headers: session.headers });
    expect(res.statusCode, `POST ${url}: ${res.body}`).toBe(201);
    return res.json();
  };
  const { domain } = await post('/api/domains', { name: `${org.siteName}.example.com` });
  const { app } = await post('/api/apps', installBody());
  return { org, member, domainId: domain.id as string, appId: app.id as string };
}

for (const width of widths) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test('the public screens have no serious or critical accessibility violation', async ({ page }) => {
      const found = await audit(page, [
        { name: '/login', url: '/api/sso/start' },
        { name: '/signup', url: '/signup' },
        { name: '/forgot-password', url: '/forgot-password' },
        { name: '/404', url: '/404' },
      ]);
      expect(found.length, `Serious or critical violations:\n${readable(found)}`).toBe(0);
    });

    test('the admin screens have no serious or critical accessibility violation', async ({
      atrium,
      page,
      signInAs,
    }) => {
      // Some twenty screens, each loaded and audited: more than one page's worth of time.
      test.setTimeout(240_000);
      const { org, member, domainId, appId } = await populatedOrganization(atrium);
      await signInAs(org.admin);
      const found = await audit(page, [
        { name: '/dashboard', url: '/dashboard' },
        { name: '/organization', url: '/organization' },
        { name: '/domain', url: '/domain' },
        { name: '/addomain', url: '/addomain' },
        { name: '/d-verify', url: `/d-verify?id=${domainId}` },
        { name: '/users', url: '/users' },
        {
          name: '/users with the search open',
          url: '/users',
          open: async (p) => {
            await p.getByRole('button', { name: 'Open search' }).click();
            await expect(p.getByPlaceholder('Search . . .')).toBeVisible();
          },
        },
        { name: '/adduser', url: '/adduser' },
        { name: "a user's page", url: `/users/${member.id}` },
        { name: '/groups', url: '/groups' },
        {
          name: "a group's page",
          url: '/groups',
          open: async (p) => {
            await p.getByRole('button', { name: 'Engineering', exact: true }).click();
            await expect(p.getByRole('button', { name: 'Engineering', exact: true })).toHaveAttribute(
              'aria-pressed',
              'true',
            );
          },
        },
        { name: '/apps', url: '/apps' },
        { name: '/apps/catalog', url: '/apps/catalog' },
        { name: 'the install form', url: '/apps/install/wiki' },
        { name: "an app's page", url: `/apps/${appId}` },
        { name: '/activity', url: '/activity' },
        { name: '/mail-settings', url: '/mail-settings' },
        { name: '/notifications', url: '/notifications' },
        { name: '/profile', url: '/profile' },
        {
          name: width < 992 ? 'the navigation drawer open' : 'the profile panel open',
          url: '/dashboard',
          open: async (p) => {
            if (width < 992) {
              await p.getByRole('button', { name: 'Navigation menu' }).click();
              await expect(p.getByRole('complementary', { name: 'Main navigation' })).toBeInViewport();
            } else {
              await p.getByRole('button', { name: 'Open profile panel' }).click();
              await expect(p.getByRole('dialog', { name: 'Profile' })).toBeVisible();
            }
          },
        },
      ]);
      expect(found.length, `Serious or critical violations:\n${readable(found)}`).toBe(0);
    });

    test('the Data Migration page, with a dry run shown, has no serious or critical accessibility violation', async ({
      atrium,
      page,
      signInAs,
    }) => {
      const org = await createOrganizationWithAdmin(atrium.db);
      await signInAs(org.admin);
      const found = await audit(page, [
        {
          name: '/data-migration with a dry run',
          url: '/data-migration',
          open: async (p) => {
            await p.getByLabel('CSV file').setInputFiles({
              name: 'people.csv',
              mimeType: 'text/csv',
              buffer: Buffer.from('First name,Last name,E-mail\nAda,Lovelace,ada@nowhere.test\n'),
            });
            await p.getByRole('button', { name: 'Check the file' }).click();
            await expect(p.getByTestId('dry-run')).toBeVisible();
          },
        },
      ]);
      expect(found.length, `Serious or critical violations:\n${readable(found)}`).toBe(0);
    });

    test("a user's screen has no serious or critical accessibility violation", async ({
      atrium,
      page,
      signInAs,
    }) => {
      const { org } = await populatedOrganization(atrium);
      const user: TestUser = await createUser(atrium.db, org.id, { firstName: 'Mia', lastName: 'Member' });
      await signInAs(user);
      const found = await audit(page, [{ name: '/application', url: '/application' }]);
      expect(found.length, `Serious or critical violations:\n${readable(found)}`).toBe(0);
    });
  });
}
