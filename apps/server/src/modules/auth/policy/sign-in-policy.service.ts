import type { SignInPolicy } from '@atrium/contracts/sign-in-policy';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import { findPolicy, findPolicyOfUser, savePolicy, type PolicyOfUser } from './sign-in-policy.repository.ts';
import { hasStrongFactor } from '../factors/strong-factors.ts';

/**
 * The organisation's sign-in policy (issue 17 item 5). Nobody is ever locked out by it: an account
 * that must have a strong factor and has none signs in with what it has (password and e-mailed
 * code) and then sets one up before the sign-in completes (forced enrolment), as Google and Okta
 * do. Forbidding the e-mail code works the same way for such accounts: the e-mailed code serves
 * this one last time, to prove the mailbox before an app is bound to the account; accounts that
 * have an app are simply never offered the e-mail again. The alternative, refusing the sign-in
 * until an admin steps in, would lock out every honest user the day the policy changes.
 */
export const getSignInPolicy = (db: Db, organizationId: string) => findPolicy(db, organizationId);

export async function updateSignInPolicy(
  db: Db,
  actor: { organizationId: string; userId: string; label: string; ip: string },
  policy: SignInPolicy,
): Promise<SignInPolicy> {
  return db.transaction().execute(async (trx) => {
    await savePolicy(trx, actor.organizationId, policy);
    const org = await trx
      .selectFrom('organizations')
      .select('name')
      .where('id', '=', actor.organizationId)
      .executeTakeFirstOrThrow();
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label: actor.label },
      action: 'organization.sign_in_policy_updated',
      target: { type: 'organization', id: actor.organizationId, label: org.name },
      ip: actor.ip,
      details: { ...policy },
    });
    return policy;
  });
}

/** What `enrolmentRequired` decides on: the user's policy, and whether a strong factor is set up. */
export interface EnrolmentFacts {
  policy: PolicyOfUser;
  hasStrongFactor: boolean;
}

/**
 * Whether this account must set up a strong factor before its sign-in completes: the policy
 * requires one of it, or forbids the e-mail code, which is then only good for this one sign-in.
 */
export async function enrolmentRequired(
  db: DbOrTrx,
  userId: string,
  /** The policy and factors, when the sign-in's last statement read them (sign-in.repository.ts). */
  known?: EnrolmentFacts,
): Promise<boolean> {
  const policy = known?.policy ?? (await findPolicyOfUser(db, userId));
  const required =
    policy.strongFactorRequired === 'everyone' ||
    (policy.strongFactorRequired === 'admins' && policy.isAdmin) ||
    !policy.emailCodeAllowed;
  return required && !(known ? known.hasStrongFactor : await hasStrongFactor(db, userId));
}

/** Whether "Use another way" may offer the e-mailed code to this account. */
export async function emailCodeAllowedFor(db: DbOrTrx, userId: string): Promise<boolean> {
  return (await findPolicyOfUser(db, userId)).emailCodeAllowed;
}

export async function trustedBrowsersAllowedFor(db: DbOrTrx, userId: string): Promise<boolean> {
  return (await findPolicyOfUser(db, userId)).trustedBrowsersAllowed;
}
