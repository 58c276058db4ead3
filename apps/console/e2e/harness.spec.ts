import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';

test('the real server serves the built console and its API', async ({ page, atrium, request }) => {
  const health = await request.get('/api/health');
  expect(await health.json()).toEqual({ status: 'ok' });
  const org = await createOrganizationWithAdmin(atrium.db);
  expect(org.siteName).toMatch(/^org-/);
  await page.goto('/404');
  await expect(page.locator('#root')).not.toBeEmpty();
});

test('the API reference renders under its content security policy', async ({ page, request }) => {
  // Its scripts must run under the CSP (Swagger UI sets one inline style it can do without).
  const blockedScripts: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text()) && /script/i.test(message.text()))
      blockedScripts.push(message.text());
  });
  await page.goto('/api/docs');
  await expect(page.getByRole('heading', { name: /Atrium API/ })).toBeVisible();
  // Every tag of the document is listed, folded (plugins/openapi.ts); two are opened.
  const doc = (await (await request.get('/api/openapi.json')).json()) as {
    paths: Record<string, Record<string, { tags?: string[] }>>;
  };
  const tags = new Set(
    Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? [])),
  );
  await expect(page.getByRole('heading', { level: 3 })).toHaveCount(tags.size);
  for (const tag of ['health', 'users'])
    await page.getByRole('heading', { name: new RegExp(`^${tag} `) }).click();
  await expect(page.getByText('/api/users', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('button', { name: /GET \/api\/health/ })).toBeVisible();
  expect(blockedScripts).toEqual([]);
});
