import { expect, test } from './support/fixtures.ts';
import { afterNextPaint } from './support/frames.ts';

// The sign-in page is the first thing everybody opens. Its HTML preloads the page's own modules,
// and the form is drawn with the page, so nothing moves when the sign-in's state arrives late;
// the form's rules load after it, without tripping the page's CSP.

test('the sign-in page preloads its own code and other pages do not', async ({ page }) => {
  const login = await (await page.request.get('/login?uid=abc')).text();
  const preloaded = [...login.matchAll(/rel="modulepreload" crossorigin href="([^"]+)"/g)].map((m) => m[1]);
  expect(preloaded.some((href) => /\/assets\/login-[\w-]+\.js$/.test(href ?? ''))).toBe(true);
  const other = await (await page.request.get('/forgot-password')).text();
  expect(other).not.toMatch(/\/assets\/login-/);
});

test('the sign-in page asks for its state once, from its HTML, beside its code', async ({ page }) => {
  const asked: string[] = [];
  page.on('request', (request) => asked.push(new URL(request.url()).pathname));
  await page.goto('/api/sso/start');
  await expect(page.getByLabel('E-mail address')).toBeVisible();
  const uid = new URL(page.url()).searchParams.get('uid');
  expect(asked.filter((p) => p === `/api/interactions/${uid}/state`)).toHaveLength(1);
  // Started by the HTML's preload link, not by the page's code.
  const initiators = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((entry) => entry.name.endsWith('/state'))
      .map((entry) => (entry as PerformanceResourceTiming).initiatorType),
  );
  expect(initiators).toEqual(['link']);
});

for (const width of [375, 1280] as const) {
  test(`at ${width} px the sign-in form is drawn with the page and nothing moves`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    // The interaction's state is held back until the page has painted without it: a late answer.
    let asked!: () => void;
    const requested = new Promise<void>((resolve) => (asked = resolve));
    let answer!: () => void;
    const answerable = new Promise<void>((resolve) => (answer = resolve));
    await page.route('**/api/interactions/*/state', async (route) => {
      asked();
      await answerable;
      await route.continue();
    });
    await page.addInitScript(() => {
      const w = window as unknown as { __shift: number; __heading: number; __form: number; __csp: string[] };
      w.__shift = 0;
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(e.violatedDirective));
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as unknown as Array<{ value: number; hadRecentInput: boolean }>)
          if (!entry.hadRecentInput) w.__shift += entry.value;
      }).observe({ type: 'layout-shift', buffered: true });
      // The frame in which the heading and the e-mail field first appear.
      let frame = 0;
      const look = () => {
        frame += 1;
        if (!w.__heading && document.querySelector('h1')) w.__heading = frame;
        if (!w.__form && document.querySelector('input[type="email"]')) w.__form = frame;
        if (!w.__form) requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    // Not until "load": the page's preload of the state would hold that back too.
    await page.goto('/login', { waitUntil: 'commit' });
    await requested;
    await afterNextPaint(page);
    answer();
    await expect(page).toHaveURL(/\/login\?uid=/);
    await expect(page.getByLabel('E-mail address')).toBeVisible();
    await afterNextPaint(page);
    const seen = await page.evaluate(() => {
      const w = window as unknown as { __shift: number; __heading: number; __form: number };
      return { shift: w.__shift, heading: w.__heading, form: w.__form };
    });
    expect(seen.form).toBe(seen.heading);
    expect(seen.shift).toBe(0);

    // The form's rules (zod, loaded after the page) answer, and nothing broke the page's CSP.
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByText('Enter your e-mail address')).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);
  });
}
