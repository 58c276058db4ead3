import path from 'node:path';
import { screenshotAndAxe } from './support/accessibility.ts';
import { createOrganizationWithAdmin, expect, test } from './support/fixtures.ts';

// Takeout (docs/takeout.md): an admin exports everything from Data Migration, watches it finish
// and downloads the archive, through the real console and server.
const shots = path.resolve(import.meta.dirname, '../../../screenshots/takeout');

for (const width of [375, 1280] as const) {
  test(`at ${width} px an admin exports everything, sees the export finish and downloads the archive`, async ({
    page,
    atrium,
    signInAs,
  }) => {
    const org = await createOrganizationWithAdmin(atrium.db);
    const shot = await screenshotAndAxe(page, shots, width);
    await signInAs(org.admin);

    await page.goto('/data-migration');
    const card = page.locator('.card', { has: page.getByRole('heading', { name: 'Export everything' }) });
    await expect(card.getByText('No exports yet')).toBeVisible();
    await card.getByRole('button', { name: 'Export everything' }).click();

    const item = card.getByTestId('takeout').first();
    // The page polls: the export becomes ready without a reload.
    await expect(item.getByText('Ready')).toBeVisible({ timeout: 60_000 });
    await expect(item).toContainText('can be downloaded until');
    await expect(card.getByRole('button', { name: 'Export everything' })).toBeEnabled();
    await shot('ready', card);

    const downloading = page.waitForEvent('download');
    await item.getByRole('button', { name: 'Download archive' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(
      new RegExp(`^atrium-takeout-${org.siteName}-.*\\.tar\\.gz$`),
    );
    expect(await download.failure()).toBeNull();
    // The page stays, and the link it followed worked once (issue 38): the browser's history holds
    // no URL that fetches the archive again, even with this session.
    await expect(page).toHaveURL(/\/data-migration$/);
    const again = await page.request.get(download.url());
    expect(again.status()).toBe(403);
    expect((await again.json()).error.code).toBe('download_link_invalid');

    const logged = await atrium.db
      .selectFrom('activity_log')
      .select('action')
      .where('organization_id', '=', org.id)
      .where('action', 'like', 'takeout.%')
      .execute();
    expect(logged.map((r) => r.action).sort()).toEqual([
      'takeout.downloaded',
      'takeout.finished',
      'takeout.started',
    ]);
  });
}
