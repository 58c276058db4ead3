import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';

/** One-time download links of archives (2026_12_05_0300); only the token's hash is stored. */

export async function insertDownloadLink(
  db: DbOrTrx,
  link: { organizationId: string; takeoutId: string; sessionId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('takeout_download_links')
    .values({
      organization_id: link.organizationId,
      takeout_id: link.takeoutId,
      session_id: link.sessionId,
      token_hash: link.tokenHash,
      expires_at: link.expiresAt,
    })
    .execute();
}

/**
 * Uses a link: deletes it if it is this session's, for this archive of this organisation, and not
 * expired. One statement, so of two requests at once only one gets it.
 */
export async function useDownloadLink(
  db: DbOrTrx,
  link: { organizationId: string; takeoutId: string; sessionId: string; tokenHash: string },
): Promise<boolean> {
  const used = await db
    .deleteFrom('takeout_download_links')
    .where('token_hash', '=', link.tokenHash)
    .where('organization_id', '=', link.organizationId)
    .where('takeout_id', '=', link.takeoutId)
    .where('session_id', '=', link.sessionId)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('id')
    .executeTakeFirst();
  return used !== undefined;
}

/** Housekeeping: links nobody followed in time. */
export async function deleteExpiredDownloadLinks(db: DbOrTrx): Promise<void> {
  await db
    .deleteFrom('takeout_download_links')
    .where('expires_at', '<=', sql<Date>`now()`)
    .execute();
}
