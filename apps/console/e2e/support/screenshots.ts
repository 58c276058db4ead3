import path from 'node:path';

/** Where specs keep screenshots meant for people to look at (outside Playwright's wiped output). */
export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../../../test-results/screenshots');
