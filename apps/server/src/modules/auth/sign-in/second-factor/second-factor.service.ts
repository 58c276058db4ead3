import type { SecondFactor } from '@atrium/contracts/authenticator';
import { decryptSecret, deriveKey, sha256 } from '../../../../lib/crypto.ts';
import { AppError, fieldError } from '../../../../lib/errors.ts';
import { recordActivity } from '../../../activity/activity.repository.ts';
import {
  countUnusedRecoveryCodes,
  findConfirmedAuthenticatorOfUser,
  useRecoveryCode,
  useTimeStep,
} from '../../factors/authenticator/authenticator.repository.ts';
import { hashRecoveryCode } from '../../factors/recovery-codes.ts';
import { completeSignIn, sendSignInCode, type SignedIn, type SignInDeps } from '../sign-in.service.ts';
import {
  chooseSecondFactor,
  countWrongFactor,
  findSecondFactor,
  type SignInProgress,
} from '../sign-in-progress.ts';
import { recoveryCodeUsedMail } from '../../factors/strong-sign-in-mail.ts';
import { recordFailure, throttleError, throttleState } from '../throttle.ts';
import { strongFactorsOf, type StrongFactors } from '../../factors/strong-factors.ts';
import { matchingStep } from '../../factors/authenticator/totp.ts';

/** The key that seals authenticator secrets at rest. */
export const authenticatorKey = (secret: string) => deriveKey(secret, 'authenticator-apps');

type Device = { token: string; userAgent?: string };

const passwordFirst = () => fieldError('code', 'Enter your e-mail and password first.', 'code_invalid');

/** A sign-in's progress, and whether its browser was known to the account (throttle.ts). */
export type JudgedProgress = SignInProgress & { knownDevice: boolean };

/**
 * The sign-in's progress, if its password was right and it is not locked or throttled; a browser
 * the account has signed in with is judged by its known devices' failures (throttle.ts).
 */
export async function progressForCode(
  deps: SignInDeps,
  context: string,
  ip: string,
  device?: Device,
): Promise<JudgedProgress> {
  const progress = await findSecondFactor(deps.db, context);
  if (!progress) throw passwordFirst();
  const deviceHash = device ? sha256(device.token) : null;
  const throttle = await throttleState(deps.db, progress.identifier, ip, deviceHash);
  if (throttle.blocked) throw throttleError(throttle.blocked);
  return { ...progress, knownDevice: throttle.knownDevice };
}

/**
 * A wrong code (authenticator or recovery) is a failed sign-in for the identifier's throttling,
 * like a wrong password or e-mailed code, and one of the 5 tries this sign-in has.
 */
export async function wrongCode(
  deps: SignInDeps,
  context: string,
  progress: SignInProgress & { knownDevice?: boolean },
  ip: string,
) {
  const left = await deps.db.transaction().execute(async (trx) => {
    await recordFailure(trx, progress.identifier, ip, progress.knownDevice);
    return countWrongFactor(trx, context);
  });
  if (left <= 0) {
    throw fieldError('code', 'Too many wrong codes. Enter your password again.', 'code_dead');
  }
  return left;
}

/**
 * Which other factors "Use another way" offers: the user's passkey and app, the e-mail only when
 * the app did not ask for a strong sign-in.
 */
export function otherWaysThan(
  factor: SecondFactor,
  strongRequired: boolean,
  has: StrongFactors = { passkey: false, totp: true },
): SecondFactor[] {
  const all: SecondFactor[] = [
    ...(has.passkey ? (['passkey'] as const) : []),
    ...(has.totp ? (['totp'] as const) : []),
    ...(strongRequired ? [] : (['email'] as const)),
    'recovery',
  ];
  return all.filter((f) => f !== factor);
}

export async function checkAuthenticatorCode(
  deps: SignInDeps,
  input: { context: string; code: string; ip: string; device: Device },
): Promise<SignedIn> {
  const progress = await progressForCode(deps, input.context, input.ip, input.device);
  const app = await findConfirmedAuthenticatorOfUser(deps.db, progress.userId);
  if (!app) throw passwordFirst();
  const secret = decryptSecret(authenticatorKey(deps.config.secret), app.secret_sealed);
  const step = matchingStep(secret, input.code);
  if (step !== null && (await useTimeStep(deps.db, app.id, step))) {
    return completeSignIn(deps, {
      ...input,
      identifier: progress.identifier,
      knownDevice: progress.knownDevice,
    });
  }
  const left = await wrongCode(deps, input.context, progress, input.ip);
  // A code already used (seen over a shoulder, or sent twice) is refused like a wrong one.
  const reason =
    step === null ? 'This code is not correct.' : 'This code was already used. Wait for the next one.';
  throw fieldError('code', `${reason} ${left} ${left === 1 ? 'try' : 'tries'} left.`, 'code_incorrect');
}

export async function checkRecoveryCode(
  deps: SignInDeps,
  input: { context: string; code: string; ip: string; device: Device },
): Promise<SignedIn> {
  const progress = await progressForCode(deps, input.context, input.ip, input.device);
  const hash = hashRecoveryCode(deps.config, progress.userId, input.code);
  const used = await deps.db.transaction().execute(async (trx) => {
    if (!(await useRecoveryCode(trx, progress.userId, hash))) return undefined;
    const user = await trx
      .selectFrom('users as u')
      .innerJoin('organizations as o', 'o.id', 'u.organization_id')
      .select(['u.id', 'u.email', 'u.first_name', 'u.last_name', 'u.organization_id', 'o.name'])
      .where('u.id', '=', progress.userId)
      .executeTakeFirstOrThrow();
    const owner = { organizationId: user.organization_id, userId: user.id };
    const left = await countUnusedRecoveryCodes(trx, owner);
    const label = `${user.first_name} ${user.last_name}`.trim() || user.email;
    await recordActivity(trx, {
      organizationId: user.organization_id,
      actor: { userId: user.id, label },
      action: 'user.recovery_code_used',
      target: { type: 'user', id: user.id, label },
      ip: input.ip,
      details: { recoveryCodesLeft: left },
    });
    await deps.mailer.queue(
      trx,
      recoveryCodeUsedMail(
        deps.config,
        { email: user.email, firstName: user.first_name, organizationName: user.name },
        { at: new Date(), ip: input.ip, left },
      ),
    );
    return true;
  });
  if (used)
    return completeSignIn(deps, {
      ...input,
      identifier: progress.identifier,
      knownDevice: progress.knownDevice,
    });
  const left = await wrongCode(deps, input.context, progress, input.ip);
  throw fieldError(
    'code',
    `This recovery code is not correct or was already used. ${left} ${left === 1 ? 'try' : 'tries'} left.`,
    'code_incorrect',
  );
}

/**
 * "Use another way": switches this sign-in to another factor; the e-mail sends its code now.
 * Refused when the factor is not offered (the app asked for a strong sign-in).
 */
export async function chooseFactor(
  deps: SignInDeps,
  input: { context: string; factor: SecondFactor; strongRequired: boolean },
): Promise<SignInProgress> {
  const progress = await findSecondFactor(deps.db, input.context);
  if (!progress) throw new AppError(409, 'no_code_pending', 'Enter your e-mail and password first.');
  const has = await strongFactorsOf(deps.db, progress.userId);
  if (!otherWaysThan(progress.factor, input.strongRequired, has).includes(input.factor)) {
    throw new AppError(400, 'factor_not_allowed', 'This way of signing in is not available here.');
  }
  if (input.factor === 'email') {
    await sendSignInCode(deps, { context: input.context, identifier: progress.identifier });
  }
  await chooseSecondFactor(deps.db, input.context, input.factor);
  return { ...progress, factor: input.factor };
}
