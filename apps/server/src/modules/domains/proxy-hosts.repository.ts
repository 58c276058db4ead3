import type { DbOrTrx } from '../../db/database.ts';

// Deployment-wide on purpose: a reverse proxy asks about any host, for every organisation.

/** Whether `name` is a verified domain of some organisation (the partial unique index answers). */
export async function isVerifiedDomain(db: DbOrTrx, names: string[]): Promise<boolean> {
  if (names.length === 0) return false;
  const row = await db
    .selectFrom('domains')
    .select('id')
    .where('state', '=', 'verified')
    .where('name', 'in', names)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
