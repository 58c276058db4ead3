import { sql, type RawBuilder } from 'kysely';
import type { SignInPolicy } from '@atrium/contracts/sign-in-policy';
import type { DbOrTrx } from '../../../db/database.ts';

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

export type PolicyOfUser = SignInPolicy & { userId: string; organizationId: string; isAdmin: boolean };

/**
 * The policy of the user's organisation, and whether the user is an admin of it, in one statement
 * (it is asked on every sign-in step). By id, or by address while only that is known.
 */
export async function findPolicyOfUser(db: DbOrTrx, user: string | { email: string }): Promise<PolicyOfUser> {
  const row = await findPolicyRow(db, user).executeTakeFirstOrThrow();
  return toPolicyOfUser(row);
}

/** The same for an address that may belong to nobody (the account was deleted meanwhile). */
export async function findPolicyOfAddress(db: DbOrTrx, email: string): Promise<PolicyOfUser | undefined> {
  const row = await findPolicyRow(db, { email }).executeTakeFirst();
  return row && toPolicyOfUser(row);
}

/** Whether the user (a column reference) is an admin: a member of the organisation's system group. */
export const isAdminOf = (userId: RawBuilder<unknown>) => sql<boolean>`exists (
  select 1 from group_members gm join groups g on g.id = gm.group_id
  where gm.user_id = ${userId} and g.is_system)`;

function findPolicyRow(db: DbOrTrx, user: string | { email: string }) {
  return db
    .selectFrom('users as u')
    .leftJoin('sign_in_policies as p', 'p.organization_id', 'u.organization_id')
    .select([
      'u.id',
      'u.organization_id',
      isAdminOf(sql.ref('u.id')).as('is_admin'),
      'p.strong_factor_required',
      'p.email_code_allowed',
      'p.trusted_browsers_allowed',
    ])
    .where(typeof user === 'string' ? 'u.id' : 'u.email', '=', typeof user === 'string' ? user : user.email);
}

/** A policy row as `findPolicyRow` and the password step's statement read it. */
export function toPolicyOfUser(row: {
  id: string;
  organization_id: string;
  is_admin: boolean;
  strong_factor_required: SignInPolicy['strongFactorRequired'] | null;
  email_code_allowed: boolean | null;
  trusted_browsers_allowed: boolean | null;
}): PolicyOfUser {
  return {
    strongFactorRequired: row.strong_factor_required ?? DEFAULT_POLICY.strongFactorRequired,
    emailCodeAllowed: row.email_code_allowed ?? DEFAULT_POLICY.emailCodeAllowed,
    trustedBrowsersAllowed: row.trusted_browsers_allowed ?? DEFAULT_POLICY.trustedBrowsersAllowed,
    userId: row.id,
    organizationId: row.organization_id,
    isAdmin: row.is_admin,
  };
}
