import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 30, item 9: an operator command's mistake is one line (README, "Operator commands"); the
// usage is printed for --help, or when no command is given.
const cli = path.resolve(import.meta.dirname, '../../src/cli.ts');
const env = {
  PATH: process.env.PATH ?? '',
  ATRIUM_SECRET: 'x'.repeat(40),
  LOG_LEVEL: 'warn',
  DATA_DIR: mkdtempSync(path.join(tmpdir(), 'atrium-cli-errors-')),
};

function atrium(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

describe('operator command errors', () => {
  it.each([
    [['frobnicate'], 'Unknown command "frobnicate" (npm run atrium -- --help lists the commands)'],
    [['set-plan', '--bogus'], "set-plan: Unknown option '--bogus'"],
    [['set-plan', '--site'], "set-plan: Option '--site <value>' argument missing"],
    [['create-organization', '--site', 'acme'], '--name is required: the organisation name'],
    [
      ['delete-organization', '--site', 'acme'],
      '--yes is required: deleting acme removes all its users, groups, apps and data',
    ],
  ])('%j stops with one line naming the problem, and no usage', (args, line) => {
    const r = atrium(...args);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(line);
    expect(r.stdout).toBe('');
  });

  it('prints the usage for --help (exit 0) and when no command is given (exit 1)', () => {
    for (const args of [['--help'], ['set-plan', '--help']]) {
      const help = atrium(...args);
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/^Usage:\n/);
      expect(help.stdout).toContain('npm run atrium -- set-plan --site <site-name>');
      expect(help.stderr).toBe('');
    }
    const none = atrium();
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/^Usage:\n/);
  });
});
