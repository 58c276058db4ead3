import type { SecondFactor } from '@atrium/contracts/authenticator';
import type { DbOrTrx } from '../../../db/database.ts';
import { requestsStrongSignIn } from '../../../oidc/authentication-methods.ts';
import { otherWaysThan } from './second-factor/second-factor.service.ts';
import {
  findPolicyOfAddress,
  findPolicyOfUser,
  type PolicyOfUser,
} from '../policy/sign-in-policy.repository.ts';
import { strongFactorsOf, type StrongFactors } from '../factors/strong-factors.ts';

/**
 * What the second-factor step offers a sign-in, by the app's request and the organisation's
 * policy: the other ways (the e-mailed code only when neither asks for more), and whether
 * "Trust this browser for 30 days" is shown.
 */
export async function offersFor(
  db: DbOrTrx,
  account: { userId: string } | { email: string },
  factor: SecondFactor,
  params: Record<string, unknown>,
  /** The user's strong factors and policy when the caller has them already (the password step). */
  known?: { has: StrongFactors; policy: PolicyOfUser },
): Promise<{ otherWays: SecondFactor[]; canTrustBrowser: boolean }> {
  const policy =
    known?.policy ??
    ('userId' in account
      ? await findPolicyOfUser(db, account.userId)
      : await findPolicyOfAddress(db, account.email));
  const userId = 'userId' in account ? account.userId : policy?.userId;
  const has = known?.has ?? (userId ? await strongFactorsOf(db, userId) : { passkey: false, totp: false });
  const emailRefused = requestsStrongSignIn(params) || policy?.emailCodeAllowed === false;
  return {
    otherWays: otherWaysThan(factor, emailRefused, has),
    canTrustBrowser: policy?.trustedBrowsersAllowed ?? false,
  };
}

/** Whether the e-mailed code may be chosen as this account's second factor. */
export async function emailCodeRefused(
  db: DbOrTrx,
  userId: string | undefined,
  params: Record<string, unknown>,
): Promise<boolean> {
  if (requestsStrongSignIn(params)) return true;
  return userId ? !(await findPolicyOfUser(db, userId)).emailCodeAllowed : false;
}
