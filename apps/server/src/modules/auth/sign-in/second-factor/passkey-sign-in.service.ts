import {
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
  type AuthenticationResponseJSON,
} from '@simplewebauthn/server';
import { AppError } from '../../../../lib/errors.ts';
import { sha256 } from '../../../../lib/crypto.ts';
import {
  consumeChallenge,
  findPasskeyByCredential,
  passkeysOfUser,
  saveChallenge,
  usePasskey,
} from '../../factors/passkeys/passkeys.repository.ts';
import { progressForCode, wrongCode } from './second-factor.service.ts';
import { completeSignIn, type SignInDeps } from '../sign-in.service.ts';
import { findSecondFactor } from '../sign-in-progress.ts';
import { recordFailure, throttleError, throttleState } from '../throttle.ts';
import { keyKindOf, relyingParty } from '../../factors/passkeys/webauthn.ts';

/**
 * Signing in with a passkey at /login (issue 17): alone, instead of password and code (a
 * discoverable passkey names its account, user verification required), or as the second step
 * after the password (a passkey of that account). Which of the two is decided when the options
 * are made, from where this sign-in stands, and kept with the challenge on the server.
 */
type Device = { token: string; userAgent?: string };

export interface PasskeySignIn {
  userId: string;
  /** With the password of this sign-in first, or the passkey alone. */
  withPassword: boolean;
  kind: 'hwk' | 'swk';
}

const failed = () =>
  new AppError(400, 'passkey_failed', 'This passkey could not sign you in. Try again or use another way.');

/**
 * Options for `navigator.credentials.get`. After the password, the account's own passkeys are
 * allowed; before it, none are listed (the browser offers whichever it holds for this site),
 * so the options say nothing about who has an account.
 */
export async function passkeyOptions(deps: SignInDeps, context: string): Promise<Record<string, unknown>> {
  const progress = await findSecondFactor(deps.db, context);
  const { rpID } = relyingParty(deps.config);
  const allow = progress ? await passkeysOfUser(deps.db, progress.userId) : undefined;
  const options = await generateAuthenticationOptions({
    rpID,
    allowCredentials: allow?.map((p) => ({
      id: p.credential_id,
      transports: p.transports ? p.transports.split(',') : undefined,
    })),
    userVerification: progress ? 'preferred' : 'required',
  });
  await saveChallenge(deps.db, {
    challenge: options.challenge,
    purpose: 'authentication',
    context,
    userId: progress?.userId,
  });
  return options as unknown as Record<string, unknown>;
}

/**
 * Checks a passkey's answer for this sign-in and completes it. The challenge must be one this
 * server made for this sign-in (used up here); the signature counter must move on; the account's
 * throttling applies as for a password, and a suspended or deleted account signs nobody in.
 */
export async function checkPasskey(
  deps: SignInDeps,
  input: { context: string; response: Record<string, unknown>; ip: string; device: Device },
): Promise<PasskeySignIn> {
  const { db } = deps;
  const response = input.response as unknown as AuthenticationResponseJSON;
  const passkey =
    typeof response.id === 'string' ? await findPasskeyByCredential(db, response.id) : undefined;
  if (!passkey) throw failed();
  const owner = await db
    .selectFrom('users')
    .select(['email', 'status'])
    .where('id', '=', passkey.user_id)
    .executeTakeFirst();
  if (!owner) throw failed();
  const identifier = owner.email;

  // After the password: only a passkey of that account, and the tries of this sign-in count.
  const found = await findSecondFactor(db, input.context);
  const progress = found && (await progressForCode(deps, input.context, input.ip, input.device));
  let knownDevice = progress ? progress.knownDevice : false;
  if (!progress) {
    const throttle = await throttleState(db, identifier, input.ip, sha256(input.device.token));
    if (throttle.blocked) throw throttleError(throttle.blocked);
    knownDevice = throttle.knownDevice;
  }

  const { rpID, origin } = relyingParty(deps.config);
  let challengeUser: string | null | undefined;
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: async (challenge) => {
        const used = await consumeChallenge(db, {
          challenge,
          purpose: 'authentication',
          context: input.context,
        });
        challengeUser = used?.user_id;
        // A challenge made after the password is for that account only; one made before it
        // (passkey alone) only while no password was entered in between.
        return !!used && (used.user_id ?? null) === (progress?.userId ?? null);
      },
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: passkey.credential_id,
        publicKey: Buffer.from(passkey.public_key, 'base64url'),
        counter: Number(passkey.counter),
        transports: passkey.transports ? passkey.transports.split(',') : undefined,
      },
      // Alone, the passkey is both factors: something held and the PIN or biometrics that unlock it.
      requireUserVerification: !progress,
    });
  } catch {
    // A wrong origin, RP ID, signature or counter, or a challenge not ours: one answer for all.
    verification = undefined;
  }
  const rightAccount = !progress || progress.userId === passkey.user_id;
  const counted =
    verification?.verified &&
    rightAccount &&
    challengeUser !== undefined &&
    (await usePasskey(
      db,
      passkey.id,
      Number(passkey.counter),
      verification.authenticationInfo.newCounter,
      verification.authenticationInfo.credentialBackedUp,
    ));
  if (!counted) {
    if (progress) await wrongCode(deps, input.context, progress, input.ip);
    else await recordFailure(db, identifier, input.ip, knownDevice);
    throw failed();
  }
  await completeSignIn(deps, {
    context: input.context,
    identifier,
    ip: input.ip,
    device: input.device,
    knownDevice,
  });
  return { userId: passkey.user_id, withPassword: !!progress, kind: keyKindOf(passkey.backup_eligible) };
}
