import { SET_PASSWORD_LINK_HOURS } from '@atrium/contracts/users';
import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';

export type LinkPurpose = 'invite' | 'reset';

/**
 * A new set-password link for a user; any earlier unused link of theirs stops working,
 * so only the newest e-mail counts. Returns the token (only its hash is stored).
 */
export async function issueSetPasswordLink(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
  purpose: LinkPurpose,
): Promise<{ token: string; expiresAt: Date }> {
  await revokeSetPasswordLinks(db, organizationId, userId);
  const token = randomToken();
  const row = await db
    .insertInto('invitations')
    .values({
      token_hash: sha256(token),
      user_id: userId,
      organization_id: organizationId,
      purpose,
      expires_at: sql<Date>`now() + make_interval(hours => ${SET_PASSWORD_LINK_HOURS})`,
    })
    .returning('expires_at')
    .executeTakeFirstOrThrow();
  return { token, expiresAt: row.expires_at };
}

/**
 * Invitation links for several new users at once (they have no earlier link): one insert.
 * Returns each user's token.
 */
export async function issueInviteLinks(
  db: DbOrTrx,
  organizationId: string,
  userIds: string[],
): Promise<Map<string, { token: string; expiresAt: Date }>> {
  const result = new Map<string, { token: string; expiresAt: Date }>();
  if (userIds.length === 0) return result;
  const tokens = userIds.map(() => randomToken());
  const rows = await db
    .insertInto('invitations')
    .values(
      userIds.map((userId, i) => ({
        token_hash: sha256(tokens[i]!),
        user_id: userId,
        organization_id: organizationId,
        purpose: 'invite' as const,
        expires_at: sql<Date>`now() + make_interval(hours => ${SET_PASSWORD_LINK_HOURS})`,
      })),
    )
    .returning(['user_id', 'token_hash', 'expires_at'])
    .execute();
  const tokenOf = new Map(tokens.map((t) => [sha256(t), t]));
  for (const row of rows)
    result.set(row.user_id, { token: tokenOf.get(row.token_hash)!, expiresAt: row.expires_at });
  return result;
}

/** Unused links of a user stop working (the user got a password another way, or is suspended). */
export async function revokeSetPasswordLinks(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
): Promise<void> {
  await db
    .deleteFrom('invitations')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

export async function pendingLinkOf(db: DbOrTrx, organizationId: string, userId: string) {
  return db
    .selectFrom('invitations')
    .select(['purpose', 'expires_at'])
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/** The link behind a token with its user and organisation, whatever its state. */
export async function findLinkByToken(db: DbOrTrx, token: string) {
  return db
    .selectFrom('invitations as i')
    .innerJoin('users as u', 'u.id', 'i.user_id')
    .innerJoin('organizations as o', 'o.id', 'i.organization_id')
    .select([
      'i.id',
      'i.purpose',
      'i.user_id',
      'i.organization_id',
      'i.expires_at',
      'i.used_at',
      sql<boolean>`i.expires_at <= now()`.as('expired'),
      'u.email',
      'u.first_name',
      'u.last_name',
      'u.status',
      'o.name as organization_name',
    ])
    .where('i.token_hash', '=', sha256(token))
    .executeTakeFirst();
}

/** Marks a link used, atomically: of two concurrent uses only one gets `true`. */
export async function consumeLink(db: DbOrTrx, linkId: string): Promise<boolean> {
  const row = await db
    .updateTable('invitations')
    .set({ used_at: sql<Date>`now()` })
    .where('id', '=', linkId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
