// A Vitest reporter for scripts/test.ts: counts tests and writes them to VITEST_SUMMARY_FILE.
// Vitest reports the tests of a suite whose beforeAll failed as "skipped", which hides a broken
// set-up behind a harmless-looking word; here they count as failed, and the hook's error is printed.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule, TestSuite } from 'vitest/node';

export interface VitestSummary {
  passed: number;
  failed: number;
  skipped: number;
  /** One line per suite or file whose set-up failed, or per error outside any test. */
  setUpFailures: string[];
  /** `file > suite > test` of each failed test, for the last lines of a run. */
  failedTests: string[];
  /** The slowest test files, slowest first: where a run's time goes. */
  slowestFiles: { file: string; seconds: number }[];
}

/** How many of the slowest files a summary names. */
export const SLOWEST_FILES = 25;

type Scope = TestModule | TestSuite;

function describeScope(scope: Scope): string {
  if (scope.type === 'module') return path.relative(process.cwd(), scope.moduleId);
  return `${path.relative(process.cwd(), scope.module.moduleId)} > ${scope.fullName}`;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<{ message?: string }>,
  ): void {
    const summary: VitestSummary = {
      passed: 0,
      failed: 0,
      skipped: 0,
      setUpFailures: [],
      failedTests: [],
      slowestFiles: slowestFiles(testModules),
    };
    for (const testModule of testModules) {
      const broken = new Set<Scope>();
      for (const scope of [testModule, ...testModule.children.allSuites()]) {
        const errors = scope.errors();
        if (errors.length === 0) continue;
        broken.add(scope);
        const notRun = [...scope.children.allTests()].filter((t) => t.result().state !== 'passed').length;
        const message = errors.map((e) => e.message ?? String(e)).join('; ');
        const consequence = notRun
          ? `${notRun} test${notRun === 1 ? '' : 's'} did not run`
          : 'nothing in it ran';
        summary.setUpFailures.push(`${describeScope(scope)}: ${message} (${consequence})`);
        // A file that fails to load, or fails outside any test, fails the run even with no tests.
        if (notRun === 0) summary.failed += 1;
      }
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') summary.passed += 1;
        else if (state === 'failed' || inBrokenScope(test.parent, broken)) {
          summary.failed += 1;
          if (state === 'failed')
            summary.failedTests.push(
              `${path.relative(process.cwd(), testModule.moduleId)} > ${test.fullName}`,
            );
        } else summary.skipped += 1;
      }
    }
    for (const error of unhandledErrors) {
      summary.failed += 1;
      summary.setUpFailures.push(`unhandled error: ${error.message ?? String(error)}`);
    }
    const file = process.env.VITEST_SUMMARY_FILE;
    if (file) writeFileSync(file, JSON.stringify(summary, null, 2));
  }
}

/** A file's time: importing it, its set-up and its tests and hooks. */
function slowestFiles(testModules: ReadonlyArray<TestModule>): VitestSummary['slowestFiles'] {
  return testModules
    .map((testModule) => {
      const d = testModule.diagnostic();
      const ms =
        d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
      return { file: path.relative(process.cwd(), testModule.moduleId), seconds: Math.round(ms / 100) / 10 };
    })
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, SLOWEST_FILES);
}

function inBrokenScope(scope: Scope, broken: Set<Scope>): boolean {
  for (let s: Scope | undefined = scope; s; s = s.type === 'module' ? undefined : s.parent) {
    if (broken.has(s)) return true;
  }
  return false;
}
