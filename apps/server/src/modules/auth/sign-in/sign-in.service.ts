import type { Config } from '../../../config.ts';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import { AppError, fieldError } from '../../../lib/errors.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { sha256 } from '../../../lib/crypto.ts';
import { verifyAgainstDummy, verifyPassword } from '../../../lib/passwords.ts';
import { signInCodeMail, type CodeRecipient } from './codes/auth-mail.ts';
import { describeUserAgent } from '../../../lib/user-agent.ts';
import { newSignInMail, type NoticeRecipient } from '../../notifications/notice-mail.ts';
import {
  checkEmailCode,
  codeNoLongerValid,
  findLatestCode,
  issueEmailCode,
  resendLiveCode,
  type LatestCode,
} from './codes/email-codes.ts';
import { startSecondFactor } from './sign-in-progress.ts';
import type { PolicyOfUser } from '../policy/sign-in-policy.repository.ts';
import type { EnrolmentFacts } from '../policy/sign-in-policy.service.ts';
import { findPasswordStepAccount, recordCompletedSignIn, type CodeStep } from './sign-in.repository.ts';
import { strongestOf, type StrongFactors } from '../factors/strong-factors.ts';
import { recordFailure, throttleError, throttleOf } from './throttle.ts';
import type { AddressFailureBudget } from './address-failures.ts';

export interface SignInDeps {
  db: Db;
  config: Config;
  mailer: Mailer;
}

/** A completed sign-in: who, and what finishing it needs to know (sign-in-enrolment.ts). */
export interface SignedIn {
  userId: string;
  facts: EnrolmentFacts;
}

/** One message for an unknown e-mail and a wrong password alike (no user enumeration). */
export const invalidCredentials = () =>
  new AppError(400, 'invalid_credentials', 'Incorrect e-mail or password');

/**
 * Step 1 of sign-in: the password. Throttling is checked first and counts unknown e-mails too;
 * an unknown e-mail costs one argon2id verification like a wrong password does. On success a
 * 6-digit code goes to the user's address, bound to this sign-in (`context`); the account gets
 * at most 6 codes an hour across sign-ins, and only someone with the password learns that.
 * The e-mail is queued with the code and tried at once for a few seconds; `codeSent` is false
 * when it has not gone out yet (the queue keeps trying, and the page says it will arrive).
 * An account with a passkey or an authenticator app gets no e-mail: that is asked for instead.
 * From a browser the account trusts (`trustedBrowser`, checked only after the password), no
 * second factor is asked for at all.
 */
export async function checkPasswordAndSendCode(
  deps: SignInDeps,
  input: {
    context: string;
    email: string;
    password: string;
    ip: string;
    /** The sha256 of the browser's device cookie, if it sent one (throttle.ts: known devices). */
    deviceHash: string | null;
    /** Wrong steps an address may make in a minute (address-failures.ts); known devices are spared. */
    budget?: AddressFailureBudget;
    trustedBrowser?: (userId: string) => Promise<boolean>;
  },
): Promise<
  | {
      factor: 'email';
      email: string;
      resendAvailableAt: Date;
      codeSent: boolean;
      has: StrongFactors;
      policy: PolicyOfUser;
    }
  | { factor: 'passkey' | 'totp'; email: string; has: StrongFactors; policy: PolicyOfUser }
  | { factor: 'trusted'; email: string; knownDevice: boolean }
> {
  const { db } = deps;
  const identifier = input.email.trim().toLowerCase();
  // Throttling, the account, its factors and its policy: one statement (sign-in.repository.ts).
  const {
    failures,
    account: user,
    latest,
  } = await findPasswordStepAccount(db, {
    identifier,
    ip: input.ip,
    context: input.context,
    deviceHash: input.deviceHash,
  });
  const throttle = throttleOf(failures);
  if (throttle.blocked) throw throttleError(throttle.blocked);

  // Held before the password is checked, given back if it is right (address-failures.ts).
  const hold = failures.knownDevice ? undefined : input.budget?.hold(input.ip);
  const canSignIn = user?.passwordHash && user.status !== 'invited';
  let ok = false;
  try {
    ok = canSignIn
      ? await verifyPassword(user.passwordHash!, input.password)
      : await verifyAgainstDummy(input.password);
  } finally {
    if (ok) hold?.release();
    else hold?.fail();
  }
  if (!ok) {
    await recordFailure(db, identifier, input.ip, failures.knownDevice);
    throw invalidCredentials();
  }
  // Failures are not cleared here but once the code is right too: otherwise someone who knows
  // the password could wipe the wrong codes they have guessed by starting a new sign-in.

  // Only someone who knows the password learns that the account is suspended.
  if (user!.status === 'suspended') {
    throw new AppError(403, 'account_suspended', 'This account is suspended. Ask your administrator.');
  }

  if (input.trustedBrowser && (await input.trustedBrowser(user!.id))) {
    return { factor: 'trusted', email: identifier, knownDevice: failures.knownDevice };
  }
  // With a passkey or an authenticator app, the strongest comes next instead of an e-mail (issue
  // 17): only now, after the password, does the answer say which factors the account has.
  const { has, policy, recipient } = user!;
  const factor = strongestOf(has);
  if (factor) {
    await startSecondFactor(db, { context: input.context, identifier, userId: user!.id, factor });
    return { factor, email: identifier, has, policy };
  }
  const sent = await sendSignInCode(deps, {
    context: input.context,
    identifier,
    recipient,
    known: { latest },
    knownDevice: failures.knownDevice,
  });
  return { factor: 'email', has, policy, ...sent };
}

/**
 * E-mails the sign-in code for a sign-in whose password was right. Going back to the password
 * step of the same sign-in (or choosing the e-mail again) reuses the code already sent; so does a
 * new sign-in while another one's code still lives (issue 30): that code moves to this sign-in and
 * is sent again (once a minute at most), so sign-ins abandoned after the password do not use up
 * the hour's codes, and each brings no new code to guess. From a browser the account has signed in
 * with (`knownDevice`), the hourly cap does not refuse a new code.
 */
export async function sendSignInCode(
  deps: SignInDeps,
  /** `recipient` and `known.latest`: the address, organisation name and latest code, when read already. */
  input: {
    context: string;
    identifier: string;
    recipient?: CodeRecipient;
    known?: { latest: LatestCode | undefined };
    knownDevice?: boolean;
  },
): Promise<{ email: string; resendAvailableAt: Date; codeSent: boolean }> {
  const { db, config, mailer } = deps;
  const { context, identifier } = input;
  const latest = input.known ? input.known.latest : await findLatestCode(db, { purpose: 'sign-in', context });
  if (latest?.live && latest.identifier === identifier) {
    // Its message may still be waiting for the mail server: one more try if it is due.
    const codeSent = latest.mailSent || (!!latest.mailJobId && (await mailer.deliverNow(latest.mailJobId)));
    return { email: identifier, resendAvailableAt: latest.resendAvailableAt, codeSent };
  }
  const recipient = input.recipient ?? (await codeRecipient(db, identifier));
  const mail = { mailer, message: (code: string) => signInCodeMail(recipient, code) };
  const again = await resendLiveCode(db, config, { purpose: 'sign-in', identifier, context }, mail);
  if (again) {
    // Not sent again within a minute of the last message, which carries the same code: one more
    // try of that one if it is due.
    const { mailSent, mailJobId } = again.last;
    const codeSent = again.mailJob
      ? await mailer.deliverClaimed(again.mailJob)
      : mailSent || (!!mailJobId && (await mailer.deliverNow(mailJobId)));
    return { email: identifier, resendAvailableAt: again.resendAvailableAt, codeSent };
  }
  const { resendAvailableAt, mailJob } = await issueEmailCode(
    db,
    config,
    { purpose: 'sign-in', identifier, context },
    mail,
    { beyondHourlyCap: input.knownDevice },
  );
  return { email: identifier, resendAvailableAt, codeSent: await mailer.deliverClaimed(mailJob!) };
}

/**
 * Sends a new code for the sign-in in progress (60 s after the last, 5 times an hour; from a
 * browser the account has signed in with, `knownDevice`, the hourly cap does not refuse it).
 */
export async function resendSignInCode(
  deps: SignInDeps,
  context: string,
  knownDevice?: (email: string) => Promise<boolean>,
): Promise<{ resendAvailableAt: Date; codeSent: boolean }> {
  const latest = await findLatestCode(deps.db, { purpose: 'sign-in', context });
  if (!latest) throw new AppError(409, 'no_code_pending', 'Enter your e-mail and password first.');
  const recipient = await codeRecipient(deps.db, latest.identifier);
  const { resendAvailableAt, mailJob } = await issueEmailCode(
    deps.db,
    deps.config,
    { purpose: 'sign-in', identifier: latest.identifier, context },
    { mailer: deps.mailer, message: (code) => signInCodeMail(recipient, code) },
    { beyondHourlyCap: !!knownDevice && (await knownDevice(latest.identifier)) },
  );
  return { resendAvailableAt, codeSent: await deps.mailer.deliverClaimed(mailJob!) };
}

/** The address a code goes to and its organisation's name, which the e-mail shows. */
async function codeRecipient(db: DbOrTrx, email: string): Promise<CodeRecipient> {
  const row = await db
    .selectFrom('users as u')
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select(['u.email', 'o.name as organizationName'])
    .where('u.email', '=', email)
    .executeTakeFirst();
  // The account was deleted while its sign-in was in progress.
  if (!row) throw new AppError(409, 'no_code_pending', 'Enter your e-mail and password first.');
  return { email: row.email, organizationName: row.organizationName };
}

/**
 * Step 2: the e-mailed code. Returns the account that signs in. A wrong code is a failed
 * sign-in for the identifier's throttling, like a wrong password (docs/sign-in.md), so codes
 * guessed over many sign-ins meet the same growing delays and lockout.
 */
export async function checkSignInCode(
  deps: SignInDeps,
  input: {
    /** What the step read first (`findCodeStep`): the latest code, its throttling, the open code. */
    step: CodeStep;
    context: string;
    code: string;
    ip: string;
    device: { token: string; userAgent?: string };
    /** Wrong steps an address may make in a minute (address-failures.ts); known devices are spared. */
    budget?: AddressFailureBudget;
  },
): Promise<SignedIn> {
  const { db, config } = deps;
  const { latest, failures, open } = input.step;
  if (!latest) throw fieldError('code', 'Enter your e-mail and password first.', 'code_invalid');
  const identifier = latest.identifier;
  // A used-up or expired code has nothing left to guess: its own message says what to do.
  if (latest.live) {
    const throttle = throttleOf(failures);
    if (throttle.blocked) throw throttleError(throttle.blocked);
  }
  const hold = failures.knownDevice ? undefined : input.budget?.hold(input.ip);
  let wrong = false;
  let codeId: string;
  try {
    codeId = await checkEmailCode(
      db,
      config,
      { purpose: 'sign-in', identifier, context: input.context, code: input.code },
      (trx) => {
        wrong = true;
        return recordFailure(trx, identifier, input.ip, failures.knownDevice);
      },
      { open },
    );
  } finally {
    if (wrong) hold?.fail();
    else hold?.release();
  }
  // The code is used up with the sign-in's other writes, and the notice to a new browser's owner
  // stored with them, in one statement (issue 18).
  return completeSignIn(deps, {
    ...input,
    identifier,
    codeId,
    recipient: input.step.recipient,
    knownDevice: failures.knownDevice,
  });
}

/**
 * Password and second factor were both right: the account signs in (if still active), the run of
 * failures ends, and a browser the account has not used is told to its owner by e-mail.
 */
export async function completeSignIn(
  deps: SignInDeps,
  input: {
    context: string;
    identifier: string;
    ip: string;
    device: { token: string; userAgent?: string };
    /** The browser was known to the account before (which failures the success ends, throttle.ts). */
    knownDevice?: boolean;
    /** The e-mail code to use up with the sign-in (checked right, not yet used). */
    codeId?: string;
    /** The address's names, when read already: the notice then goes in the same statement. */
    recipient?: NoticeRecipient;
  },
): Promise<SignedIn> {
  const { db, config } = deps;
  const { recipient } = input;
  const signIn = { at: new Date(), browser: describeUserAgent(input.device.userAgent), ip: input.ip };
  const notice = (to: NoticeRecipient) => newSignInMail(config, to, signIn);
  // The account signs in, the run of consecutive failures ends, the browser is remembered.
  const writes = {
    context: input.context,
    identifier: input.identifier,
    deviceHash: sha256(input.device.token),
    ip: input.ip,
    knownDevice: input.knownDevice ?? false,
    codeId: input.codeId,
  };
  // From a browser this account has not used, its owner hears of it: with the names known, the
  // notice is stored by the same statement; otherwise it is queued after it, in one transaction.
  const done = recipient
    ? await recordCompletedSignIn(db, { ...writes, notice: deps.mailer.claimedJob(notice(recipient)) })
    : await db.transaction().execute(async (trx) => {
        const written = await recordCompletedSignIn(trx, writes);
        const user = written.user;
        if (user?.new_device) {
          await deps.mailer.queue(
            trx,
            notice({
              email: user.email,
              firstName: user.first_name,
              organizationName: user.organization_name,
            }),
          );
        }
        return written;
      });
  if (!done.codeUsed) throw codeNoLongerValid();
  const user = done.user;
  if (!user)
    throw new AppError(403, 'account_suspended', 'This account cannot sign in. Ask your administrator.');
  // Sent once the answer is out, so the sign-in never waits for it (a queued one, by the worker).
  if (done.notice) deps.mailer.deliverClaimedLater(done.notice);
  return { userId: user.id, facts: { policy: user.policy, hasStrongFactor: user.hasStrongFactor } };
}
