import type { Db } from '../db/database.ts';

/**
 * Claims kept with an access token and shown by introspection. Dovecot's `passdb oauth2` checks
 * that the token belongs to the address signing in to IMAP (its username_attribute = email), so
 * a token issued with the `email` scope carries the user's address.
 */
export async function extraAccessTokenClaims(
  db: Db,
  token: { kind: string; accountId?: string; scope?: string },
  account?: { accountId: string; email?: unknown },
): Promise<Record<string, string> | undefined> {
  if (token.kind !== 'AccessToken' || !token.accountId) return undefined;
  if (!token.scope?.split(' ').includes('email')) return undefined;
  // The account the provider loaded for this very request (account.ts) has the address.
  if (account?.accountId === token.accountId && typeof account.email === 'string') {
    return { email: account.email };
  }
  const user = await db
    .selectFrom('users')
    .select('email')
    .where('id', '=', token.accountId)
    .executeTakeFirst();
  return user ? { email: user.email } : undefined;
}
