// The whole test suite: builds the console, runs unit and server tests (Vitest), then browser tests
// (Playwright on Debian's Chromium) against the real server, and ends with a summary: the slowest
// test files, the counts, each phase's time, and the name of every failed test. With
// TEST_DATABASE_URL, only the tests that depend on the database (see `databasePass`).
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { databaseIndependentTests } from './database-independent-tests.ts';
import { ensureTestPackages } from './test-packages.ts';
import type { VitestSummary } from './vitest-summary-reporter.ts';

const root = path.resolve(import.meta.dirname, '..');
const results = path.join(root, 'test-results');
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function run(command: string, args: string[], options: SpawnSyncOptions = {}): number {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  return result.status ?? 1;
}

ensureTestPackages(chromium);
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });

/**
 * What a pass runs (ARCHITECTURE.md, Tests): on the embedded database, everything; on a PostgreSQL
 * server (TEST_DATABASE_URL), only what depends on the database: the server tests in
 * apps/server/test/ that open the test database, each against its own database. Unit tests beside
 * the code, the contracts', scripts' and console's tests, the browser tests and the server tests
 * that only ever start an embedded database of their own ran in the embedded pass and do not change
 * with the database. `npm test -- --all` runs everything on PostgreSQL too.
 */
const databasePass = Boolean(process.env.TEST_DATABASE_URL) && !process.argv.includes('--all');
const serverTests = path.join(root, 'apps/server/test');
const databasePassArgs = () => [
  '--project',
  'server',
  'apps/server/test/',
  ...databaseIndependentTests(serverTests).flatMap((file) => ['--exclude', `test/${file}`]),
];

const buildStarted = Date.now();
if (run('npm', ['run', 'build']) !== 0) {
  console.error('The console build failed; no tests were run.');
  process.exit(1);
}

// One after the other, each with the whole machine: run side by side on these 2-core machines they
// took 48 min (Vitest on its default single worker, slowed by the browser and its server); apart,
// Vitest and Playwright on two workers each take about 6 and 7 min (issue 39). Vitest's files wait
// on daemons and, on PostgreSQL, on the database server (two workers kept the cores 60-75% busy):
// three workers.
const vitestJson = path.join(results, 'vitest-summary.json');
const e2eJson = path.join(results, 'e2e.json');
const vitestStarted = Date.now();
run(
  'npx',
  [
    'vitest',
    'run',
    '--maxWorkers=3',
    '--reporter=default',
    '--reporter=./scripts/vitest-summary-reporter.ts',
    ...(databasePass ? databasePassArgs() : []),
  ],
  { env: { ...process.env, VITEST_SUMMARY_FILE: vitestJson } },
);
const playwrightStarted = Date.now();
if (!databasePass) {
  run('npx', ['playwright', 'test', '-c', 'apps/console/playwright.config.ts', '--reporter=list,json'], {
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: e2eJson },
  });
}
const finished = Date.now();
const minutes = (from: number, to: number) => `${((to - from) / 60_000).toFixed(1)} min`;

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  /** Names of the failed tests, repeated at the end so that the run's last lines hold them. */
  failedTests: string[];
}

function slowestFiles(): VitestSummary['slowestFiles'] {
  if (!existsSync(vitestJson)) return [];
  return (JSON.parse(readFileSync(vitestJson, 'utf8')) as VitestSummary).slowestFiles;
}

function vitestCounts(): Counts {
  // No summary means Vitest itself did not get to the end: that is a failure, not "no tests".
  if (!existsSync(vitestJson))
    return { passed: 0, failed: 1, skipped: 0, failedTests: ['Vitest did not finish (no summary)'] };
  const summary = JSON.parse(readFileSync(vitestJson, 'utf8')) as VitestSummary;
  if (summary.setUpFailures.length > 0) {
    console.error('\nSet-up failed (the tests under it count as failed):');
    for (const line of summary.setUpFailures) console.error(`  ${line}`);
  }
  return {
    passed: summary.passed,
    failed: summary.failed,
    skipped: summary.skipped,
    failedTests: summary.failedTests,
  };
}

function playwrightCounts(): Counts {
  if (databasePass) return { passed: 0, failed: 0, skipped: 0, failedTests: [] };
  if (!existsSync(e2eJson))
    return { passed: 0, failed: 1, skipped: 0, failedTests: ['Playwright did not finish (no report)'] };
  const r = JSON.parse(readFileSync(e2eJson, 'utf8')) as PlaywrightReport;
  const errors = (r.errors ?? []).map((e) => `Playwright error: ${e.message ?? 'unknown'}`);
  return {
    passed: r.stats.expected,
    failed: r.stats.unexpected + r.stats.flaky + errors.length,
    skipped: r.stats.skipped,
    failedTests: [...failedSpecs(r.suites ?? []), ...errors],
  };
}

interface PlaywrightSuite {
  title: string;
  suites?: PlaywrightSuite[];
  specs?: { title: string; ok: boolean; tests: { projectName: string }[] }[];
}
interface PlaywrightReport {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  errors?: { message?: string }[];
  suites?: PlaywrightSuite[];
}

function failedSpecs(suites: PlaywrightSuite[], parents: string[] = []): string[] {
  return suites.flatMap((suite) => {
    const titles = [...parents, suite.title];
    const own = (suite.specs ?? [])
      .filter((spec) => !spec.ok)
      .map((spec) => [...titles, spec.title].join(' > '));
    return [...own, ...failedSpecs(suite.suites ?? [], titles)];
  });
}

const unit = vitestCounts();
const e2e = playwrightCounts();
const total = {
  passed: unit.passed + e2e.passed,
  failed: unit.failed + e2e.failed,
  skipped: unit.skipped + e2e.skipped,
};
const database = process.env.TEST_DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite';
console.log(`\nSlowest test files (of Vitest's):`);
for (const { file, seconds } of slowestFiles()) console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${file}`);
console.log(`\nUnit and server tests: ${unit.passed} passed, ${unit.failed} failed`);
console.log(
  databasePass
    ? 'Browser tests: not in this pass (they ran on the embedded database; npm test -- --all runs them here)'
    : `Browser tests: ${e2e.passed} passed, ${e2e.failed} failed`,
);
console.log(`Database: ${database}${databasePass ? ' (the tests that depend on the database)' : ''}`);
console.log('Time:');
console.log(`  build       ${minutes(buildStarted, vitestStarted)}`);
console.log(`  Vitest      ${minutes(vitestStarted, playwrightStarted)}`);
if (!databasePass) console.log(`  Playwright  ${minutes(playwrightStarted, finished)}`);
for (const name of [...unit.failedTests, ...e2e.failedTests]) console.log(`Failed: ${name}`);
console.log(
  `tests: ${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`,
);
process.exit(total.failed === 0 && total.passed > 0 && total.skipped === 0 ? 0 : 1);
