import { defineConfig } from '@playwright/test';

// The real server runs inside the worker (see e2e/support/fixtures.ts), serving the built console.
export default defineConfig({
  testDir: './e2e',
  testMatch: '**/*.spec.ts',
  outputDir: '../../test-results/playwright',
  fullyParallel: false,
  // Two workers, each with its own server and database: on these 2-core machines the 132 tests
  // took 7.4 min so; on one, 15 to 19 min at the last landings (issue 39). A file's tests stay in one worker, in order.
  workers: 2,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['json', { outputFile: '../../test-results/e2e.json' }]] : 'list',
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
