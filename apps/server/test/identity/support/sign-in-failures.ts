import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../src/db/database.ts';

/** `count` failed sign-ins of `identifier` from `ip`, recorded `ago` (a Postgres interval) before now. */
export async function recordEarlierFailures(
  db: Kysely<Database>,
  identifier: string,
  { count, ip, ago }: { count: number; ip: string; ago: string },
): Promise<void> {
  await db
    .insertInto('sign_in_failures')
    .values(
      Array.from({ length: count }, () => ({
        identifier,
        ip,
        failed_at: sql`now() - ${ago}::interval` as never,
      })),
    )
    .execute();
}
