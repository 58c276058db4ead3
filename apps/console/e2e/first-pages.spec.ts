import { expect, signInAsNewAdmin, test } from './support/fixtures.ts';

// The pages people open first start their reads from the HTML, beside the page's code: the
// session (and the dashboard's setup progress) is asked for once, and the console's own request
// takes that answer instead of asking again after the code has run.

test.beforeEach(async ({ atrium, signInAs }) => {
  await signInAsNewAdmin(atrium, signInAs, { prefix: 'first', name: 'Early Ltd' });
});

for (const [path, heading, reads] of [
  ['/dashboard', 'Admin home', ['/api/session', '/api/setup']],
  ['/application', 'Your apps', ['/api/session']],
] as const) {
  test(`${path} asks for what it waits on once, from its HTML`, async ({ page }) => {
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    const response = await page.goto(path);
    const html = (await response?.text()) ?? '';
    for (const read of reads) {
      expect(html).toContain(`<link rel="preload" as="fetch" crossorigin="anonymous" href="${read}">`);
    }
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    expect(asked.filter((p) => p === '/api/session')).toHaveLength(1);
    // Started by the HTML's preload link, not by the page's code.
    const initiator = await page.evaluate(
      () =>
        (
          performance
            .getEntriesByType('resource')
            .find((entry) => new URL(entry.name).pathname === '/api/session') as PerformanceResourceTiming
        ).initiatorType,
    );
    expect(initiator).toBe('link');
    // The page's own stylesheets are linked from the HTML, not added once its code has loaded.
    const stylesheets = await page.evaluate(() =>
      [...document.querySelectorAll('link[rel="stylesheet"]')].map((link) => link.getAttribute('href')),
    );
    expect(stylesheets.length).toBeGreaterThan(1);
    for (const href of stylesheets) expect(html).toContain(`href="${href}"`);
  });
}
