// Prints the console's first-load JavaScript (gzip): the entry script and the chunks index.html
// preloads. Lazy routes are not counted; they load when visited. Fails past the budget.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 200;
const dist = path.resolve(process.argv[2] ?? 'dist');
const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
const files = [...html.matchAll(/(?:src|href)="\/?([^"]+\.js)"/g)].map((m) => m[1]!);
let total = 0;
for (const file of new Set(files)) {
  const size = gzipSync(readFileSync(path.join(dist, file))).length;
  total += size;
  console.log(`  ${file}  ${(size / 1024).toFixed(1)} KB gzip`);
}
const kb = total / 1024;
console.log(`First-load JavaScript: ${kb.toFixed(1)} KB gzip (budget ${BUDGET_KB} KB)`);
if (kb > BUDGET_KB) {
  console.error(`The first load is over budget by ${(kb - BUDGET_KB).toFixed(1)} KB: lazy-load more routes.`);
  process.exit(1);
}
