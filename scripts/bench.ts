// Runs every benchmark (apps/server/bench/*.bench.ts) one after another; each prints its own figures.
// Benchmarks measure; they never fail a test run.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve(import.meta.dirname, '../apps/server/bench');
const only = process.argv.slice(2);
const files = (existsSync(dir) ? readdirSync(dir) : [])
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const result = spawnSync(process.execPath, [path.join(dir, file)], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
if (failed) {
  console.error(`${failed} benchmark(s) did not finish`);
  process.exit(1);
}
