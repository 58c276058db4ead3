import type { Page } from '@playwright/test';
import { signInAs as sessionFor } from '../../server/test/support/fixtures.ts';
import { createOrganizationWithAdmin, createUser, expect, test, type Atrium } from './support/fixtures.ts';
import { SCREENSHOTS } from './support/screenshots.ts';

// Issue 13: the header search finds users, groups, domains and apps, not only pages.

async function seedThings(atrium: Atrium, organizationId: string, adminHeaders: Record<string, string>) {
  const bob = await createUser(atrium.db, organizationId, {
    firstName: 'Bob',
    lastName: 'Marley',
    email: `bob.marley.${organizationId.slice(0, 8)}@example.com`,
  });
  const post = async (url: string, payload: object) => {
    const res = await atrium.app.inject({ method: 'POST', url, headers: adminHeaders, payload });
    expect(res.statusCode, res.body).toBe(201);
  };
  await post('/api/groups', { name: 'Bobcats' });
  await post('/api/apps', {
    templateKey: 'wiki',
    title: 'Bobtail Wiki',
    launchUrl: 'https://wiki.example.com',
    redirectUris: ['https://wiki.example.com/oidc/callback'],
    openToEveryone: true,
    groupIds: [],
  });
  await atrium.db
    .insertInto('domains')
    .values({
      organization_id: organizationId,
      name: 'bobs-burgers.test',
      state: 'pending',
      verification_token: 'e2e'.padEnd(32, 'x'),
      dkim_private_key_enc: 'sealed',
      dkim_public_key: 'public',
    })
    .execute();
  return bob;
}

/** Opens the header search (once the previous one has collapsed) and types into it. */
async function searchFor(page: Page, text: string) {
  await page.getByRole('button', { name: 'Open search' }).click();
  await page.getByRole('search').getByRole('combobox').fill(text);
}

/** The label of the option the combobox points at (aria-activedescendant). */
async function activeOption(page: Page) {
  const id = await page.getByRole('search').getByRole('combobox').getAttribute('aria-activedescendant');
  expect(id).toBeTruthy();
  return page.locator(`[id="${id}"]`);
}

test('an admin finds a user, a group, a domain and an app from the header search and opens them with the keyboard', async ({
  page,
  atrium,
  signInAs,
}) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  const bob = await seedThings(atrium, org.id, (await sessionFor(atrium.db, org.admin)).headers);
  // Another organisation's look-alikes never show.
  const other = await createOrganizationWithAdmin(atrium.db);
  await createUser(atrium.db, other.id, { firstName: 'Bobby', lastName: 'Elsewhere' });
  await signInAs(org.admin);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/dashboard');

  await searchFor(page, 'bob');
  const results = page.getByRole('listbox', { name: 'Search results' });
  for (const [heading, label] of [
    ['Users', 'Bob Marley'],
    ['Groups', 'Bobcats'],
    ['Domains', 'bobs-burgers.test'],
    ['Apps', 'Bobtail Wiki'],
  ] as const) {
    const group = results.getByRole('group', { name: heading });
    await expect(group.getByText(heading, { exact: true })).toBeVisible();
    await expect(group.getByRole('option', { name: new RegExp(`^${label}`) })).toBeVisible();
  }
  await expect(results.getByRole('option')).toHaveCount(4);
  await expect(results.getByText('Bobby')).toHaveCount(0);

  // ArrowDown walks across the groups; Enter opens the active one.
  const input = page.getByRole('search').getByRole('combobox');
  await input.press('ArrowDown');
  await expect(await activeOption(page)).toHaveText(/^Bob Marley/);
  await input.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/users/${bob.id}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Bob Marley' })).toBeVisible();
  await expect(results).toBeHidden();

  await searchFor(page, 'bob');
  await expect(results.getByRole('option')).toHaveCount(4);
  await input.press('ArrowDown');
  await input.press('ArrowDown');
  await expect(await activeOption(page)).toHaveText('Bobcats');
  await expect(results.getByRole('option', { name: 'Bobcats' })).toHaveAttribute('aria-selected', 'true');
  await input.press('Enter');
  await expect(page).toHaveURL(/\/groups\?group=[0-9a-f-]+$/);
  await expect(page.getByText('Bobcats members')).toBeVisible();

  await searchFor(page, 'bob');
  await expect(results.getByRole('option')).toHaveCount(4);
  for (let i = 0; i < 3; i++) await input.press('ArrowDown');
  await expect(await activeOption(page)).toHaveText(/^bobs-burgers\.test/);
  await input.press('Enter');
  await expect(page).toHaveURL(/\/d-verify\?id=[0-9a-f-]+$/);
  await expect(page.getByRole('heading', { level: 1, name: 'bobs-burgers.test' })).toBeVisible();

  // ArrowUp from the input wraps to the last result.
  await searchFor(page, 'bob');
  await expect(results.getByRole('option')).toHaveCount(4);
  await input.press('ArrowUp');
  await expect(await activeOption(page)).toHaveText(/^Bobtail Wiki/);
  await input.press('Enter');
  await expect(page).toHaveURL(/\/apps\/[0-9a-f-]+$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Bobtail Wiki' })).toBeVisible();

  // Pages still match on the client; a miss says so; Escape closes.
  await searchFor(page, 'dom');
  await expect(
    results.getByRole('group', { name: 'Pages' }).getByRole('option', { name: 'Domain', exact: true }),
  ).toBeVisible();
  await input.fill('zzz');
  await expect(page.getByText('No results for “zzz”')).toBeVisible();
  await input.press('Escape');
  await expect(page.getByRole('search').getByRole('combobox')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Open search' })).toBeVisible();
});

test('at 375 px the results span the screen under the header', async ({ page, atrium, signInAs }) => {
  const org = await createOrganizationWithAdmin(atrium.db);
  await seedThings(atrium, org.id, (await sessionFor(atrium.db, org.admin)).headers);
  await signInAs(org.admin);
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto('/dashboard');
  await searchFor(page, 'bob');
  const option = page.getByRole('option', { name: /^Bob Marley/ });
  await expect(option).toBeVisible();
  const box = await page.getByRole('listbox', { name: 'Search results' }).boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(375);
  await page.getByRole('search').getByRole('combobox').press('ArrowDown');
  await page.getByRole('search').getByRole('combobox').press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Bob Marley' })).toBeVisible();
});

// Issue 30, item 11: pages by their words, users by any part of name or address.
for (const width of [375, 1280]) {
  test(`pages are found by their words and users by their company's domain at ${width} px`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db);
    const domain = `${org.siteName}.test`;
    await createUser(atrium.db, org.id, { firstName: 'Grace', lastName: 'Hopper', email: `grace@${domain}` });
    await createUser(atrium.db, org.id, { firstName: 'Alan', lastName: 'Turing', email: `alan@${domain}` });
    await signInAs(org.admin);
    await page.setViewportSize({ width, height: 800 });
    await page.goto('/organization');
    const results = page.getByRole('listbox', { name: 'Search results' });
    const pages = results.getByRole('group', { name: 'Pages' });
    const input = page.getByRole('search').getByRole('combobox');

    await searchFor(page, 'add user');
    await expect(pages.getByRole('option', { name: 'Add a user' })).toBeVisible();
    await input.fill('profile');
    await expect(pages.getByRole('option', { name: 'Profile' })).toBeVisible();
    await expect(pages.getByRole('option', { name: 'organization' })).toBeVisible();
    await input.fill('password');
    await expect(pages.getByRole('option', { name: 'Profile' })).toBeVisible();

    await input.fill(domain);
    const users = results.getByRole('group', { name: 'Users' });
    await expect(users.getByRole('option', { name: /^Grace Hopper/ })).toBeVisible();
    await expect(users.getByRole('option', { name: /^Alan Turing/ })).toBeVisible();
    await input.fill('urin');
    await expect(users.getByRole('option')).toHaveText([/^Alan Turing/]);
    await page.screenshot({ path: `${SCREENSHOTS}/${width}-search-inside-name.png` });

    await input.fill('add user');
    await pages.getByRole('option', { name: 'Add a user' }).click();
    await expect(page).toHaveURL(/\/adduser$/);
  });
}
