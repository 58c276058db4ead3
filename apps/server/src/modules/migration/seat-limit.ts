import type { DbOrTrx } from '../../db/database.ts';

/**
 * Whether the organisation has a seat for its nth new user of an import (1-based), as a reason a
 * person understands, or null. Subscriptions (seat limits) are not built yet: until they are,
 * every row has a seat. The dry run and the import both ask this one function per row they would
 * create, so the seat rule lands here and nowhere else.
 */
export type SeatCheck = (nthNewUser: number) => string | null;

export async function seatCheckFor(_db: DbOrTrx, _organizationId: string): Promise<SeatCheck> {
  return () => null;
}
