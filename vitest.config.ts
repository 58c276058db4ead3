import { defineConfig } from 'vitest/config';

// One run covers every workspace: server tests in Node, console unit tests in jsdom.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          root: 'apps/server',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
          // Each file still gets its own database and server; what it shares with the files before it
          // in the same worker is the loaded modules. Importing the server's module graph again for
          // every file was half of the suite's time (issue 39: identity's 40 files took 136 s
          // isolated and 58 s shared). A module keeps no per-test state: state lives in the app.
          isolate: false,
          globalSetup: ['test/support/database-template.setup.ts'],
        },
      },
      {
        test: {
          name: 'contracts',
          root: 'packages/contracts',
          include: ['src/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'scripts',
          root: 'scripts',
          include: ['*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'console',
          root: 'apps/console',
          include: ['src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
        },
      },
    ],
  },
});
