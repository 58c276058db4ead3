import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

// Releases for update's tests: copies of this checkout, each with a change, and the CLI of one.

const repo = path.resolve(import.meta.dirname, '../../../..');
const node = path.join(repo, 'node_modules', '.bin', 'node');

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI of `checkout`, as `npm run atrium -- …` there runs it (cwd without a .env). */
export function atrium(root: string, checkout: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(node, [path.join(checkout, 'apps/server/src/cli.ts'), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * A copy of this checkout with `change` made to it: the files git knows (tracked and untracked,
 * not ignored), the built console, and node_modules hard-linked as release.ts does.
 */
export function copyCheckout(root: string, name: string, change: (dir: string) => void): string {
  const dir = path.join(root, 'checkouts', name);
  mkdirSync(dir, { recursive: true });
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
  }).stdout;
  const copy = spawnSync('sh', ['-c', 'tar -c --null -T - | tar -x -C "$0"', dir], {
    cwd: repo,
    input: files,
  });
  expect(copy.status).toBe(0);
  for (const [from, to] of [
    ['apps/console/dist', 'apps/console'],
    ['node_modules', '.'],
    ['apps/console/node_modules', 'apps/console'],
  ] as const) {
    const flag = from.endsWith('node_modules') ? '-al' : '-a';
    expect(spawnSync('cp', [flag, path.join(repo, from), path.join(dir, to)]).status).toBe(0);
  }
  change(dir);
  return dir;
}

export const harmless = (dir: string) =>
  appendFileSync(path.join(dir, 'README.md'), '\n<!-- update test -->\n');

export function addMigration(dir: string, name: string, body: string): void {
  writeFileSync(path.join(dir, 'apps/server/src/db/migrations', `${name}.ts`), body);
}

/** A release whose server throws before it listens. */
export function cannotStart(dir: string): void {
  const main = path.join(dir, 'apps/server/src/main.ts');
  writeFileSync(
    main,
    readFileSync(main, 'utf8').replace(
      'async function main()',
      "throw new Error('this release cannot start (update test)');\n\nasync function main()",
    ),
  );
}

/** A release that loads and migrates the database, then fails before it serves. */
export function failsAfterMigrating(dir: string): void {
  const main = path.join(dir, 'apps/server/src/main.ts');
  const opened = '  const { db } = opened;\n';
  const source = readFileSync(main, 'utf8');
  expect(source).toContain(opened);
  writeFileSync(
    main,
    source.replace(opened, `${opened}  throw new Error('this release cannot start (update test)');\n`),
  );
}
