import { expect, signInAsNewAdmin, test } from './support/fixtures.ts';
import { afterNextPaint } from './support/frames.ts';

// Content that jumps when the data arrives moves what the admin is about to press. The overview is
// held back on purpose until the page has been drawn without it; the shifts are then summed the
// way Core Web Vitals sum them (CLS), and must stay under its "good" threshold of 0.1.

test.beforeEach(async ({ atrium, signInAs }) => {
  await signInAsNewAdmin(atrium, signInAs, { prefix: 'cls', name: 'Steady Ltd' });
});

for (const width of [375, 1280] as const) {
  test(`at ${width} px the dashboard does not move when its overview arrives`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    // Held until the page has been drawn without it, then let through.
    let answer!: () => void;
    const answerable = new Promise<void>((resolve) => (answer = resolve));
    let answered = false;
    await page.route('**/api/dashboard', async (route) => {
      await answerable;
      answered = true;
      await route.continue();
    });
    await page.addInitScript(() => {
      const w = window as unknown as { __shift: number };
      w.__shift = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as unknown as Array<{
          value: number;
          hadRecentInput: boolean;
        }>) {
          if (!entry.hadRecentInput) w.__shift += entry.value;
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    await page.goto('/dashboard');
    await expect(page.getByRole('heading', { level: 1, name: 'Admin home' })).toBeVisible();
    expect(answered).toBe(false);
    answer();
    await expect(page.getByTestId('stat-seats')).toBeVisible();
    await expect(page.getByTestId('setup-checklist')).toBeVisible();
    // A frame after the data is drawn, so its shifts (if any) have been reported.
    await afterNextPaint(page);
    const shift = await page.evaluate(() => (window as unknown as { __shift: number }).__shift);
    expect(shift).toBeLessThan(0.1);
  });
}
