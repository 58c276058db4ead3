import { sql } from 'kysely';
import type { TrustedBrowser } from '@atrium/contracts/sign-in-policy';
import type { DbOrTrx } from '../../../../db/database.ts';
import { sha256 } from '../../../../lib/crypto.ts';
import { describeUserAgent } from '../../../../lib/user-agent.ts';
import type { OwnerKey } from '../authenticator/authenticator.repository.ts';
import { trustedBrowsersAllowedFor } from '../../policy/sign-in-policy.service.ts';

/**
 * Trusted browsers (issue 17 item 6): after a complete sign-in with a second factor, a user may
 * trust the browser for 30 days; its sign-ins then need only the password. The trust is bound to
 * the account and to the browser's device cookie (known-devices.ts: HttpOnly, Secure, only its
 * hash kept), is listed and removable on /profile, and ends with a password change or reset
 * (revoke-user-access.ts) or an admin's reset of the factors (strong-factors.ts).
 */
export const TRUST_DAYS = 30;

export async function trustBrowser(
  db: DbOrTrx,
  input: { userId: string; token: string; userAgent?: string },
): Promise<void> {
  if (!(await trustedBrowsersAllowedFor(db, input.userId))) return;
  const user = await db
    .selectFrom('users')
    .select('organization_id')
    .where('id', '=', input.userId)
    .executeTakeFirstOrThrow();
  const until = sql<Date>`now() + make_interval(days => ${TRUST_DAYS})`;
  await db
    .insertInto('trusted_browsers')
    .values({
      organization_id: user.organization_id,
      user_id: input.userId,
      device_hash: sha256(input.token),
      user_agent: input.userAgent?.slice(0, 500) ?? null,
      trusted_until: until,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'device_hash']).doUpdateSet({
        trusted_until: until,
        user_agent: input.userAgent?.slice(0, 500) ?? null,
        created_at: sql`now()`,
      }),
    )
    .execute();
}

/** Whether this browser is trusted by the user now (and the policy allows it); notes the use. */
export async function useTrustedBrowser(db: DbOrTrx, userId: string, token: string): Promise<boolean> {
  if (!(await trustedBrowsersAllowedFor(db, userId))) return false;
  const used = await db
    .updateTable('trusted_browsers')
    .set({ last_used_at: sql`now()` })
    .where('user_id', '=', userId)
    .where('device_hash', '=', sha256(token))
    .where('trusted_until', '>', sql<Date>`now()`)
    .returning('id')
    .executeTakeFirst();
  return !!used;
}

export async function listTrustedBrowsers(
  db: DbOrTrx,
  owner: OwnerKey,
  currentToken: string | undefined,
): Promise<TrustedBrowser[]> {
  const rows = await db
    .selectFrom('trusted_browsers')
    .select(['id', 'device_hash', 'user_agent', 'created_at', 'trusted_until', 'last_used_at'])
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId)
    .where('trusted_until', '>', sql<Date>`now()`)
    .orderBy('created_at', 'desc')
    .execute();
  const current = currentToken ? sha256(currentToken) : undefined;
  return rows.map((row) => ({
    id: row.id,
    browser: describeUserAgent(row.user_agent ?? undefined),
    trustedAt: row.created_at.toISOString(),
    trustedUntil: row.trusted_until.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    current: row.device_hash === current,
  }));
}

/** Removes one trusted browser, or all of them without `id`; false when there was none. */
export async function removeTrustedBrowsers(db: DbOrTrx, owner: OwnerKey, id?: string): Promise<boolean> {
  let query = db
    .deleteFrom('trusted_browsers')
    .where('organization_id', '=', owner.organizationId)
    .where('user_id', '=', owner.userId);
  if (id) query = query.where('id', '=', id);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Trust that ran out, and forced enrolments of sign-ins long abandoned: nothing can use them. */
export async function purgeExpiredTrust(db: DbOrTrx): Promise<void> {
  await db
    .deleteFrom('trusted_browsers')
    .where('trusted_until', '<', sql<Date>`now()`)
    .execute();
  await db
    .deleteFrom('sign_in_enrolments')
    .where('expires_at', '<', sql<Date>`now()`)
    .execute();
}
