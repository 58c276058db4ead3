import { sql } from 'kysely';
import type { SignInPolicy } from '@atrium/contracts/sign-in-policy';
import type { DbOrTrx } from '../../db/database.ts';

/** The organisation's sign-in policy (Kysely only; rules are in sign-in-policy.service.ts). */
export const DEFAULT_POLICY: SignInPolicy = {
  strongFactorRequired: 'nobody',
  emailCodeAllowed: true,
  trustedBrowsersAllowed: true,
};

export async function findPolicy(db: DbOrTrx, organizationId: string): Promise<SignInPolicy> {
  const row = await db
    .selectFrom('sign_in_policies')
    .select(['strong_factor_required', 'email_code_allowed', 'trusted_browsers_allowed'])
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (!row) return DEFAULT_POLICY;
  return {
    strongFactorRequired: row.strong_factor_required,
    emailCodeAllowed: row.email_code_allowed,
    trustedBrowsersAllowed: row.trusted_browsers_allowed,
  };
}

export async function savePolicy(db: DbOrTrx, organizationId: string, policy: SignInPolicy): Promise<void> {
  const values = {
    strong_factor_required: policy.strongFactorRequired,
    email_code_allowed: policy.emailCodeAllowed,
    trusted_browsers_allowed: policy.trustedBrowsersAllowed,
  };
  await db
    .insertInto('sign_in_policies')
    .values({ organization_id: organizationId, ...values })
    .onConflict((oc) => oc.column('organization_id').doUpdateSet({ ...values, updated_at: sql`now()` }))
    .execute();
}

/** The policy of the user's organisation, and whether the user is an admin of it. */
export async function findPolicyOfUser(
  db: DbOrTrx,
  userId: string,
): Promise<SignInPolicy & { organizationId: string; isAdmin: boolean }> {
  const user = await db
    .selectFrom('users as u')
    .select([
      'u.organization_id',
      sql<boolean>`exists (
        select 1 from group_members gm join groups g on g.id = gm.group_id
        where gm.user_id = u.id and g.is_system)`.as('is_admin'),
    ])
    .where('u.id', '=', userId)
    .executeTakeFirstOrThrow();
  return {
    ...(await findPolicy(db, user.organization_id)),
    organizationId: user.organization_id,
    isAdmin: user.is_admin,
  };
}
