import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page } from '@playwright/test';

/**
 * axe-core run in the page itself (axe.run). The builder's default runs it per frame and then
 * finishes in a blank page it opens and loads axe into again, for each check: about half of each
 * check's time, and these checks are much of the browser tests' CPU. The console's frames are its
 * own origin, which axe.run reaches.
 */
export const axe = (page: Page) => new AxeBuilder({ page }).setLegacyMode();

/** axe-core's serious and critical violations on the page as it is now, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await axe(page).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/**
 * Sets the viewport to `width` × 900 px and returns `shot(name, element?)` for that width: it saves
 * `<width>-<name>.png` in `folder` (the element alone, or the whole page), then expects no serious
 * axe violations on the page.
 */
export async function screenshotAndAxe(page: Page, folder: string, width: number) {
  await page.setViewportSize({ width, height: 900 });
  return async (name: string, element?: Locator) => {
    const file = path.join(folder, `${width}-${name}.png`);
    await (element ? element.screenshot({ path: file }) : page.screenshot({ path: file }));
    expect(await seriousViolations(page), name).toEqual([]);
  };
}
