import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';

test('the real server serves the built console and its API', async ({ page, atrium, request }) => {
  const health = await request.get('/api/health');
  expect(await health.json()).toEqual({ status: 'ok' });
  const org = await createOrganizationWithAdmin(atrium.db);
  expect(org.siteName).toMatch(/^org-/);
  await page.goto('/404');
  await expect(page.locator('#root')).not.toBeEmpty();
});
