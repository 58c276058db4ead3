import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { OperatorProblem } from '../operator-problem.ts';

/**
 * A release is a copy of a built checkout under `<releases>/<id>`; `current` links to the one
 * serving. The id is the package version and a hash of the checkout's files (node_modules aside),
 * so the same checkout is the same release and any change to the code is a new one.
 */

/** What is not part of a release: the developer's data, settings, results and VCS. */
const LEFT_OUT = new Set([
  '.git',
  'node_modules',
  'data',
  '.env',
  'test-results',
  'playwright-report',
  'screenshots',
  '.bench',
]);

function* releaseFiles(dir: string, relative = ''): Generator<string> {
  for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
    if (relative === '' && LEFT_OUT.has(entry.name)) continue;
    if (entry.name === 'node_modules') continue;
    const name = path.join(relative, entry.name);
    if (entry.isDirectory()) yield* releaseFiles(dir, name);
    else if (entry.isFile()) yield name;
  }
}

export function releaseId(checkout: string): string {
  const { version } = JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')) as {
    version?: string;
  };
  const hash = createHash('sha256');
  for (const file of [...releaseFiles(checkout)].sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(checkout, file)))
      .update('\0');
  }
  return `${version ?? '0.0.0'}-${hash.digest('hex').slice(0, 12)}`;
}

/** What a checkout must hold to be deployed; the first thing missing, as one line. */
export function checkoutProblem(checkout: string): string | undefined {
  if (!existsSync(path.join(checkout, 'node_modules', '.bin', 'node'))) {
    return `${checkout}: no node_modules — run npm ci in the checkout first`;
  }
  if (!existsSync(path.join(checkout, 'apps', 'console', 'dist', 'index.html'))) {
    return `${checkout}: the console is not built — run npm run build in the checkout first`;
  }
  return undefined;
}

/**
 * Copies the checkout to `<releases>/<id>` unless that release exists; a half-made copy (an
 * interrupted run) is made again. node_modules is hard-linked where the file system allows it
 * (847 MB copied per release otherwise), the rest copied.
 */
export const releaseDeployed = (releases: string, id: string) =>
  existsSync(path.join(releases, id, '.atrium-release'));

export function deployRelease(checkout: string, releases: string, id: string): boolean {
  const target = path.join(releases, id);
  if (releaseDeployed(releases, id)) return false;
  const partial = `${target}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true, mode: 0o755 });
  for (const entry of readdirSync(checkout)) {
    if (LEFT_OUT.has(entry)) continue;
    run('cp', ['-a', path.join(checkout, entry), partial]);
  }
  const modules = path.join(checkout, 'node_modules');
  const linked = spawnSync('cp', ['-al', modules, partial], { encoding: 'utf8' });
  if (linked.status !== 0) {
    rmSync(path.join(partial, 'node_modules'), { recursive: true, force: true });
    run('cp', ['-a', modules, partial]);
  }
  run('sh', ['-c', `printf '%s\\n' "$1" > "$2/.atrium-release"`, 'sh', id, partial]);
  rmSync(target, { recursive: true, force: true });
  renameSync(partial, target);
  return true;
}

export function listReleases(releases: string): string[] {
  if (!existsSync(releases)) return [];
  return readdirSync(releases)
    .filter((name) => existsSync(path.join(releases, name, '.atrium-release')))
    .sort((a, b) => statSync(path.join(releases, a)).mtimeMs - statSync(path.join(releases, b)).mtimeMs);
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new OperatorProblem(
      `${command} ${args.join(' ')}: ${(result.stderr || result.error?.message || '').trim()}`,
    );
  }
}
