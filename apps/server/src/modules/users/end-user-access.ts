import type { DbOrTrx } from '../../db/database.ts';
import { revokeUserAccess } from '../auth/revoke-user-access.ts';

/**
 * Ends everything a suspended or deleted user (or one whose password an admin reset) holds:
 * console sessions, SSO sessions, grants and tokens, through identity's revocation.
 * Call it inside the transaction of the change.
 */
export async function endUserAccess(db: DbOrTrx, userId: string): Promise<void> {
  await revokeUserAccess(db, userId);
}
