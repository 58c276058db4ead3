import type { Db } from '../../db/database.ts';
import {
  CODE_TTL_SECONDS,
  RESEND_AFTER_SECONDS,
  consumeEmailCode,
  findLatestCode,
  issueEmailCode,
} from '../auth/sign-in/codes/email-codes.ts';
import { signupCodeMail } from './signup-code-mail.ts';
import type { SignupDeps } from './signup.service.ts';
import type { SignupFlow } from './signup.repository.ts';

/**
 * Sign-up's use of identity's e-mail codes (same rules as sign-in: 10 minutes, 5 wrong tries,
 * re-send after 60 s, at most 6 codes an hour per address). A code is bound to its flow, so a
 * code sent to one tab's flow cannot verify another flow. The hourly cap counts every flow's
 * codes for the address, so nobody can flood an address by opening many flows.
 */
const PURPOSE = 'sign-up';

/** Stores the code with its e-mail and sends that at once; false if it has not gone out yet. */
export async function sendSignupCode(deps: SignupDeps, flow: SignupFlow): Promise<boolean> {
  const email = flow.email;
  if (!email) throw new Error('A sign-up code needs an e-mail address');
  const { mailJob } = await issueEmailCode(
    deps.db,
    deps.config,
    { purpose: PURPOSE, identifier: email, context: flow.id },
    {
      mailer: deps.mailer,
      message: (code) => signupCodeMail(email, flow.organizationName ?? 'your organisation', code),
    },
  );
  return deps.mailer.deliverClaimed(mailJob!);
}

/** The flow's newest code: when it dies (or died), whether it still works, when another may be sent. */
export async function signupCodeStatus(
  db: Db,
  flow: SignupFlow,
): Promise<{ expiresAt: Date; resendAvailableAt: Date; live: boolean } | null> {
  if (!flow.email) return null;
  const latest = await findLatestCode(db, { purpose: PURPOSE, context: flow.id });
  if (!latest || latest.identifier !== flow.email) return null;
  const sentAt = latest.resendAvailableAt.getTime() - RESEND_AFTER_SECONDS * 1000;
  return {
    expiresAt: new Date(sentAt + CODE_TTL_SECONDS * 1000),
    resendAvailableAt: latest.resendAvailableAt,
    live: latest.live,
  };
}

/** Throws a field error on `code` (wrong, expired, used up) unless the code is right. */
export async function verifySignupCode(deps: SignupDeps, flow: SignupFlow, code: string): Promise<void> {
  if (!flow.email) throw new Error('A sign-up code needs an e-mail address');
  await consumeEmailCode(deps.db, deps.config, {
    purpose: PURPOSE,
    identifier: flow.email,
    context: flow.id,
    code,
  });
}
