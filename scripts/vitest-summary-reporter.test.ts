import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { VitestSummary } from './vitest-summary-reporter.ts';

const root = path.resolve(import.meta.dirname, '..');

it('counts the tests of a suite whose set-up failed as failed, and names the error and each failed test', () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'vitest-summary-')), 'summary.json');
  const config = path.join('scripts', 'fixtures', 'set-up-failure', 'vitest.config.ts');
  const run = spawnSync(
    'npx',
    ['vitest', 'run', '--config', config, '--reporter=./scripts/vitest-summary-reporter.ts'],
    { cwd: root, env: { ...process.env, VITEST_SUMMARY_FILE: file }, encoding: 'utf8' },
  );
  expect(run.status).not.toBe(0);
  const summary = JSON.parse(readFileSync(file, 'utf8')) as VitestSummary;
  // Two tests under the failed beforeAll, the file that could not load, and one failing test.
  expect(summary).toMatchObject({ passed: 1, failed: 4, skipped: 0 });
  expect(summary.failedTests).toEqual([
    expect.stringMatching(/failing-test\.fixture\.ts > a suite > a test that fails$/),
  ]);
  expect(summary.setUpFailures).toEqual(
    expect.arrayContaining([
      expect.stringMatching(
        /hook\.fixture\.ts > a suite whose set-up fails: the test database could not be created \(2 tests did not run\)/,
      ),
      expect.stringMatching(/broken-import\.fixture\.ts: .*does-not-exist/),
    ]),
  );
  // Every file of the run with its time, slowest first, so the end of a run says where time went.
  const files = summary.slowestFiles.map((f) => path.basename(f.file)).sort();
  expect(files).toEqual(expect.arrayContaining(['failing-test.fixture.ts', 'hook.fixture.ts']));
  const seconds = summary.slowestFiles.map((f) => f.seconds);
  expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
});
