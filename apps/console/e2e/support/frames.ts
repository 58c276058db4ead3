import type { Page } from '@playwright/test';

/** Resolves after two animation frames: what changed before it has been laid out and painted. */
export const afterNextPaint = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
