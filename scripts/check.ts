// `npm run check`: formatting, lint and the type check of each workspace, two at a time. Each is one
// process on one core (Prettier, ESLint, tsc), and CI's machines have two: one after the other they
// took a minute of every CI run. Each check's output is printed whole once it ends, and the run
// fails when any of them does.
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);

const checks: { name: string; command: string; args: string[] }[] = [
  { name: 'type check: apps/server', command: bin('tsc'), args: ['-p', 'apps/server'] },
  { name: 'lint', command: bin('eslint'), args: ['.'] },
  { name: 'type check: apps/console', command: bin('tsc'), args: ['-p', 'apps/console'] },
  { name: 'format', command: bin('prettier'), args: ['--check', '.'] },
  { name: 'type check: packages/contracts', command: bin('tsc'), args: ['-p', 'packages/contracts'] },
  { name: 'type check: scripts', command: bin('tsc'), args: ['-p', 'scripts'] },
];

const AT_ONCE = 2;

function run(check: (typeof checks)[number]): Promise<boolean> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(check.command, check.args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => {
      output += `${error.message}\n`;
    });
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const ok = code === 0;
      console.log(`${ok ? '✓' : '✗'} ${check.name} (${seconds} s)`);
      if (!ok || output.trim()) console.log(output.trimEnd().replace(/^/gm, '  '));
      resolve(ok);
    });
  });
}

const queue = [...checks];
const failed: string[] = [];
await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    for (let check = queue.shift(); check; check = queue.shift()) {
      if (!(await run(check))) failed.push(check.name);
    }
  }),
);
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.join(', ')}`);
  process.exit(1);
}
