// Which server test files the PostgreSQL pass leaves out (ARCHITECTURE.md, Tests): those whose
// database is the same in both passes because they never open the test database. A file depends on
// it when it, or a test helper it imports (transitively, within the test folder), names
// TEST_DATABASE_URL or imports test/support/test-database.ts (createTestApp and every fixture that
// makes a server go through it). Found from the imports, not listed by hand, so a file that starts
// using the test database runs on both databases without anyone remembering to say so.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const OPENS_THE_TEST_DATABASE = /TEST_DATABASE_URL|test-database\.ts'/;
const RELATIVE_IMPORT = /from '(\.{1,2}\/[^']+)'/g;

function opensTheTestDatabase(file: string, testRoot: string, seen: Set<string>): boolean {
  if (seen.has(file) || !existsSync(file)) return false;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  if (OPENS_THE_TEST_DATABASE.test(source)) return true;
  return [...source.matchAll(RELATIVE_IMPORT)].some(([, specifier]) => {
    const imported = path.resolve(path.dirname(file), specifier!);
    return imported.startsWith(testRoot + path.sep) && opensTheTestDatabase(imported, testRoot, seen);
  });
}

/** The `*.test.ts` files below `testRoot` that never open the test database, relative to it, sorted. */
export function databaseIndependentTests(testRoot: string): string[] {
  const root = path.resolve(testRoot);
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.test.ts'))
    .filter((file) => !opensTheTestDatabase(path.join(root, file), root, new Set()))
    .sort();
}
