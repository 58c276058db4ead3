import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseIndependentTests } from './database-independent-tests.ts';

const serverTests = path.resolve(import.meta.dirname, '../apps/server/test');

describe('the server tests the PostgreSQL pass leaves out', () => {
  const independent = databaseIndependentTests(serverTests);

  it('are those that only ever start the embedded database, or none', () => {
    // startup.test.ts spawns main.ts on a DATA_DIR of its own; pglite-turns.test.ts is PGlite's.
    expect(independent).toContain(path.join('foundation', 'startup.test.ts'));
    expect(independent).toContain(path.join('foundation', 'pglite-turns.test.ts'));
  });

  it('leave in a file that opens the test database itself or through a helper, however deep', () => {
    // backup.test.ts reads TEST_DATABASE_URL itself; users tests get it through createTestApp.
    expect(independent).not.toContain(path.join('operator', 'backup.test.ts'));
    expect(independent).not.toContain(path.join('users', 'users-list.test.ts'));
    expect(independent.length).toBeLessThan(30);
  });
});
