import {
  generateRegistrationOptions,
  verifyRegistrationResponse,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { PasskeysResponse } from '@atrium/contracts/passkeys';
import { AppError, conflict, notFound } from '../../../../lib/errors.ts';
import {
  checkPassword,
  logOwn,
  newCodesFor,
  type Actor,
  type AuthenticatorDeps,
} from '../authenticator/authenticator.service.ts';
import { countUnusedRecoveryCodes, deleteRecoveryCodes } from '../authenticator/authenticator.repository.ts';
import {
  consumeChallenge,
  deletePasskey,
  insertPasskey,
  listPasskeys,
  saveChallenge,
} from './passkeys.repository.ts';
import { strongFactorsOf, strongestOf } from '../strong-factors.ts';
import { relyingParty } from './webauthn.ts';

/**
 * A user's own passkeys (/profile): several, named, each removable. Registering and removing
 * ask for the password again, like the authenticator app; the challenge is bound to the console
 * session that asked for it.
 */
export interface SessionActor extends Actor {
  sessionId: string;
}

export async function ownPasskeys(deps: AuthenticatorDeps, owner: Actor): Promise<PasskeysResponse> {
  const rows = await listPasskeys(deps.db, owner);
  const has = await strongFactorsOf(deps.db, owner.userId);
  return {
    passkeys: rows.map((row) => ({
      id: row.id,
      name: row.name,
      createdAt: row.created_at.toISOString(),
      lastUsedAt: row.last_used_at?.toISOString() ?? null,
      synced: row.backup_eligible,
    })),
    recoveryCodesLeft: has.passkey && !has.totp ? await countUnusedRecoveryCodes(deps.db, owner) : null,
  };
}

/** Options for the browser's `navigator.credentials.create`, once the password is right. */
export async function startRegistration(
  deps: AuthenticatorDeps,
  actor: SessionActor,
  currentPassword: string,
): Promise<Record<string, unknown>> {
  const { db, config } = deps;
  await checkPassword(db, actor, currentPassword);
  const user = await db
    .selectFrom('users')
    .select(['email', 'first_name', 'last_name'])
    .where('id', '=', actor.userId)
    .executeTakeFirstOrThrow();
  const existing = await listPasskeys(db, actor);
  const options = await generateRegistrationOptions({
    rpName: 'Atrium',
    rpID: relyingParty(config).rpID,
    userName: user.email,
    userDisplayName: `${user.first_name} ${user.last_name}`.trim() || user.email,
    // The same user handle each time: an authenticator keeps one passkey per account.
    userID: Buffer.from(actor.userId.replace(/-/g, ''), 'hex'),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({
      id: p.credential_id,
      transports: p.transports ? p.transports.split(',') : undefined,
    })),
    // Discoverable, so it can sign in without the e-mail being typed first.
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await saveChallenge(db, {
    challenge: options.challenge,
    purpose: 'registration',
    context: actor.sessionId,
    userId: actor.userId,
  });
  return options as unknown as Record<string, unknown>;
}

const registrationFailed = () =>
  new AppError(400, 'passkey_not_registered', 'The passkey could not be added. Try again.');

/**
 * Checks the authenticator's answer against the challenge of this session and stores the
 * passkey. The first strong factor brings ten recovery codes, shown once.
 */
export async function finishRegistration(
  deps: AuthenticatorDeps,
  actor: SessionActor,
  input: { name: string; response: Record<string, unknown> },
): Promise<{ recoveryCodes: string[] | null }> {
  const { db, config } = deps;
  const { rpID, origin } = relyingParty(config);
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: input.response as unknown as RegistrationResponseJSON,
      expectedChallenge: async (challenge) => {
        const used = await consumeChallenge(db, {
          challenge,
          purpose: 'registration',
          context: actor.sessionId,
        });
        return used?.user_id === actor.userId;
      },
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    });
  } catch {
    throw registrationFailed();
  }
  if (!verification.verified) throw registrationFailed();
  const info = verification.registrationInfo;
  return db.transaction().execute(async (trx) => {
    const first = !strongestOf(await strongFactorsOf(trx, actor.userId));
    const taken = await trx
      .selectFrom('passkeys')
      .select('id')
      .where('credential_id', '=', info.credential.id)
      .executeTakeFirst();
    if (taken) throw conflict('This passkey is already registered.', undefined, 'passkey_exists');
    await insertPasskey(trx, actor, {
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: info.credential.transports ?? [],
      backupEligible: info.credentialDeviceType === 'multiDevice',
      backedUp: info.credentialBackedUp,
      name: input.name,
    });
    const recoveryCodes = first ? await newCodesFor(trx, config, actor) : null;
    await logOwn(trx, deps, actor, 'user.passkey_added', 'passkey-added');
    return { recoveryCodes };
  });
}

export async function removePasskey(
  deps: AuthenticatorDeps,
  actor: Actor,
  input: { id: string; currentPassword: string },
): Promise<void> {
  const { db } = deps;
  await checkPassword(db, actor, input.currentPassword);
  await db.transaction().execute(async (trx) => {
    if (!(await deletePasskey(trx, actor, input.id))) throw notFound('Passkey');
    // Without any strong factor left, recovery codes have nothing to stand in for.
    if (!strongestOf(await strongFactorsOf(trx, actor.userId))) await deleteRecoveryCodes(trx, actor);
    await logOwn(trx, deps, actor, 'user.passkey_removed', 'passkey-removed');
  });
}
