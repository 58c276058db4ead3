import { EMAIL_REGISTERED, SITE_NAME_TAKEN } from '@atrium/contracts/signup';
import { AppError, conflict, fieldError } from '../../lib/errors.ts';
import { hashPassword, passwordProblem } from '../../lib/passwords.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { issueSignInTicket } from '../auth/sign-in/sign-in-tickets.ts';
import { createOrganization } from '../organizations/create-organization.ts';
import { insertSetupRecord } from '../setup/setup.repository.ts';
import { SETUP_PAGE_PATH } from '../setup/setup.service.ts';
import type { SignupDeps } from './signup.service.ts';
import { deleteFlow, updateFlow, type SignupFlow } from './signup.repository.ts';

export interface AccountInput {
  firstName: string;
  lastName: string;
  password: string;
}

/**
 * Stage 4 ("admin account creation", "password set", "identity account creation"): in ONE
 * transaction the organisation, its admin, the Dashboard group with the admin in it, the
 * cloud-storage app, a sign-in ticket, and — as the last statement — the setup record. Any
 * failure leaves none of it. Two visitors racing for one site name: the unique constraint lets
 * one through and the other gets a field error.
 */
export async function finishSignup(
  deps: SignupDeps,
  flow: SignupFlow,
  input: AccountInput,
  ip: string,
): Promise<{ redirectTo: string }> {
  const { organizationName, siteName, email } = flow;
  if (flow.stage !== 'account' || !flow.emailVerifiedAt || !organizationName || !siteName || !email) {
    throw new AppError(409, 'signup_stage', 'Confirm your e-mail address before creating the account.');
  }
  const problem = passwordProblem(input.password);
  if (problem) throw fieldError('password', problem);
  // Hashing takes a while: do it before the transaction holds any lock.
  const passwordHash = await hashPassword(input.password);

  let ticket: string;
  try {
    ticket = await deps.db.transaction().execute(async (trx) => {
      // Locks the flow: a double submit waits here, then finds it gone.
      const live = await trx
        .selectFrom('signup_flows')
        .select('id')
        .where('id', '=', flow.id)
        .forUpdate()
        .executeTakeFirst();
      if (!live)
        throw new AppError(409, 'signup_expired', 'This sign-up is already finished or has expired.');
      const created = await createOrganization(trx, deps.config, {
        name: organizationName,
        siteName,
        admin: { email, firstName: input.firstName, lastName: input.lastName, passwordHash },
      });
      const label = `${input.firstName} ${input.lastName}`;
      await recordActivity(trx, {
        organizationId: created.organizationId,
        actor: { userId: created.adminUserId, label },
        action: 'organization.created',
        target: { type: 'organization', id: created.organizationId, label: organizationName },
        ip,
      });
      const issued = await issueSignInTicket(trx, created.adminUserId);
      await deleteFlow(trx, flow.id);
      // Keep this last: the rollback test makes exactly this statement fail.
      await insertSetupRecord(trx, created.organizationId);
      return issued;
    });
  } catch (error) {
    throw await asFieldConflict(deps, flow, error);
  }
  const query = new URLSearchParams({ ticket, returnTo: SETUP_PAGE_PATH });
  return { redirectTo: `/api/sso/start?${query.toString()}` };
}

/**
 * The loser of a race on a unique name: back to the stage that chose it, with a field error.
 * Anything else is passed on unchanged.
 */
async function asFieldConflict(deps: SignupDeps, flow: SignupFlow, error: unknown): Promise<unknown> {
  const violated = uniqueViolation(error);
  if (violated === 'organizations_site_name_key') {
    await updateFlow(deps.db, flow.id, { stage: 'site' });
    return conflict(SITE_NAME_TAKEN, { siteName: SITE_NAME_TAKEN }, 'site_name_taken');
  }
  if (violated === 'users_email_key') {
    await updateFlow(deps.db, flow.id, { stage: 'email', emailVerifiedAt: null });
    return conflict(EMAIL_REGISTERED, { email: EMAIL_REGISTERED }, 'email_registered');
  }
  return error;
}

/** The constraint a unique violation (SQLSTATE 23505) broke, from pg or PGlite errors alike. */
function uniqueViolation(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; constraint?: unknown };
  return e.code === '23505' && typeof e.constraint === 'string' ? e.constraint : undefined;
}
