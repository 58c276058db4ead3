import type { Account } from 'oidc-provider';
import type { Db } from '../db/database.ts';
import { groupNamesOfUser } from '../modules/apps/apps.repository.ts';
import { accountKey, takeReadAhead, type AccountRow } from './request-prefetch.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The provider's view of a user: only active users exist for it, so a suspended or deleted
 * user's SSO session stops working at once.
 */
export async function findAccountClaims(db: Db, sub: string): Promise<Account | undefined> {
  if (!UUID.test(sub)) return undefined;
  // A token's lookup in this request may have read its (active) account already.
  const user =
    takeReadAhead<AccountRow>(accountKey(sub)) ??
    (await db
      .selectFrom('users')
      .select(['id', 'email', 'first_name', 'last_name', 'organization_id'])
      .where('id', '=', sub)
      .where('status', '=', 'active')
      .executeTakeFirst());
  if (!user) return undefined;
  return {
    accountId: user.id,
    // For the access token's claims (token-claims.ts), without asking again.
    email: user.email,
    // Asked for only with the `groups` scope (or the claims parameter), so read only then.
    claims: async (_use, scope, claims) => ({
      sub: user.id,
      email: user.email,
      email_verified: true,
      name: `${user.first_name} ${user.last_name}`.trim(),
      given_name: user.first_name,
      family_name: user.last_name,
      ...(wantsGroups(scope, claims)
        ? { groups: await groupNamesOfUser(db, user.organization_id, user.id) }
        : {}),
    }),
  };
}

function wantsGroups(scope: string, claims: Record<string, unknown> | undefined): boolean {
  return scope.split(' ').includes('groups') || (claims !== undefined && 'groups' in claims);
}
