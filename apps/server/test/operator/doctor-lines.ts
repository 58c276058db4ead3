import { spawnSync } from 'node:child_process';

/** Reading doctor's lines as an operator does, and running their fixes as printed. */

/** The line of check `name` (`✓ name: …`), or a message naming the lines there were. */
export const lineOf = (lines: string[], name: string) =>
  lines.find((l) => l.slice(2).startsWith(`${name}:`)) ?? `(no line "${name}" in:\n${lines.join('\n')})`;

/** Waits for an event (a port, a socket), never a fixed time. */
export async function until(ready: () => Promise<boolean> | boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`not within 30 s: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A fix as the operator runs it: the line's text after "fix: ", in a shell. */
export function runFix(line: string): void {
  const fix = line.split(' — fix: ')[1];
  if (!fix) throw new Error(`no fix in: ${line}`);
  const run = spawnSync('sh', ['-c', fix], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.status !== 0) throw new Error(`${fix}: ${run.stderr}${run.stdout}`);
}

/** `text` as a literal inside a regular expression. */
export const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
