import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.ts';

/**
 * The embedded database runs on the server's own thread. Queries waiting for it must leave the
 * event loop turns in between, or a busy server reads no socket and accepts no connection until
 * every waiting query has run (issue 18: seconds of delay at 50 connections).
 */
describe('the embedded database under load', () => {
  it('lets a timer due while 50 queries wait run before the last of them', async () => {
    const db = await connectDatabase({ pgliteDir: 'memory://' });
    try {
      let finished = 0;
      const queries = Array.from({ length: 50 }, () =>
        sql`select pg_sleep(0.002)`.execute(db).then(() => finished++),
      );
      const finishedWhenTimerRan = await new Promise<number>((resolve) =>
        setTimeout(() => resolve(finished), 1),
      );
      await Promise.all(queries);
      expect(finished).toBe(50);
      expect(finishedWhenTimerRan).toBeLessThan(10);
    } finally {
      await db.destroy();
    }
  });
});
