import type { AuthenticatorEnrolment, AuthenticatorStatus } from '@atrium/contracts/authenticator';
import type { Config } from '../../../../config.ts';
import type { Mailer } from '../../../../lib/mail.ts';
import type { Db, DbOrTrx } from '../../../../db/database.ts';
import { decryptSecret, encryptSecret } from '../../../../lib/crypto.ts';
import { conflict, fieldError } from '../../../../lib/errors.ts';
import { verifyPassword } from '../../../../lib/passwords.ts';
import { recordActivity } from '../../../activity/activity.repository.ts';
import {
  countUnusedRecoveryCodes,
  deleteAuthenticator,
  deleteRecoveryCodes,
  findAuthenticator,
  replaceRecoveryCodes,
  savePendingAuthenticator,
  useTimeStep,
  type OwnerKey,
} from './authenticator.repository.ts';
import { countPasskeys } from '../passkeys/passkeys.repository.ts';
import { hashRecoveryCode, newRecoveryCodes } from '../recovery-codes.ts';
import { factorChangedMail, type FactorChange } from '../strong-sign-in-mail.ts';
import { strongFactorsOf } from '../strong-factors.ts';
import { authenticatorKey } from '../../sign-in/second-factor/second-factor.service.ts';
import { matchingStep, newTotpSecret, otpauthUri, qrCodeDataUrl } from './totp.ts';

/**
 * A user's own authenticator app and recovery codes (/profile). The secret is shown only while
 * the app is being set up; recovery codes only when they are made. Removing the app or making
 * new codes asks for the password again: a session left open must not weaken the account.
 */
export interface Actor extends OwnerKey {
  ip: string;
}

/** What changing factors needs: the database, the secret's key, and the owner's notice e-mail. */
export interface AuthenticatorDeps {
  db: Db;
  config: Config;
  mailer: Mailer;
}

export async function authenticatorStatus(db: Db, owner: OwnerKey): Promise<AuthenticatorStatus> {
  const app = await findAuthenticator(db, owner);
  const active = !!app?.confirmed_at;
  return {
    status: active ? 'active' : 'none',
    addedAt: active ? app.confirmed_at!.toISOString() : null,
    recoveryCodesLeft: active ? await countUnusedRecoveryCodes(db, owner) : 0,
  };
}

export async function startEnrolment(
  db: Db,
  config: Config,
  owner: OwnerKey,
): Promise<AuthenticatorEnrolment> {
  const user = await db
    .selectFrom('users as u')
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select(['u.email', 'o.name'])
    .where('u.id', '=', owner.userId)
    .where('u.organization_id', '=', owner.organizationId)
    .executeTakeFirstOrThrow();
  const secret = newTotpSecret();
  const saved = await savePendingAuthenticator(
    db,
    owner,
    encryptSecret(authenticatorKey(config.secret), secret),
  );
  if (!saved) throw conflict('You already have an authenticator app. Remove it first to set up another.');
  // The app lists the account as "Atrium (Organisation): address".
  const uri = otpauthUri(secret, { issuer: `Atrium (${user.name.replace(/:/g, ' ')})`, label: user.email });
  return { secret, otpauthUri: uri, qrCode: qrCodeDataUrl(uri) };
}

/**
 * The first code proves the app was set up. Ten recovery codes come with it, shown once, when it
 * is the user's first strong factor; a user with a passkey keeps the codes the passkey brought
 * (issue 30: making new ones here showed codes a second time and silently voided the first).
 */
export async function confirmEnrolment(
  deps: AuthenticatorDeps,
  actor: Actor,
  code: string,
): Promise<{ recoveryCodes: string[] | null }> {
  const { db, config } = deps;
  const app = await findAuthenticator(db, actor);
  if (!app || app.confirmed_at) {
    throw conflict('Start setting up the authenticator app again.', undefined, 'no_enrolment');
  }
  const step = matchingStep(decryptSecret(authenticatorKey(config.secret), app.secret_sealed), code);
  if (step === null) {
    throw fieldError(
      'code',
      'This code is not correct. Check the app and the time on your phone.',
      'code_incorrect',
    );
  }
  return db.transaction().execute(async (trx) => {
    if (!(await useTimeStep(trx, app.id, step, { confirm: true }))) {
      throw conflict('Start setting up the authenticator app again.', undefined, 'no_enrolment');
    }
    const first = !(await strongFactorsOf(trx, actor.userId)).passkey;
    const recoveryCodes = first ? await newCodesFor(trx, config, actor) : null;
    await logOwn(trx, deps, actor, 'user.authenticator_added', 'added');
    return { recoveryCodes };
  });
}

export async function removeAuthenticator(
  deps: AuthenticatorDeps,
  actor: Actor,
  currentPassword: string,
): Promise<void> {
  const { db } = deps;
  await checkPassword(db, actor, currentPassword);
  await db.transaction().execute(async (trx) => {
    if (!(await deleteAuthenticator(trx, actor))) {
      throw conflict('You have no authenticator app.', undefined, 'no_authenticator');
    }
    // Recovery codes stand in for the app; without it (and without a passkey) they have nothing
    // to stand in for.
    if ((await countPasskeys(trx, actor.userId)) === 0) await deleteRecoveryCodes(trx, actor);
    await logOwn(trx, deps, actor, 'user.authenticator_removed', 'removed');
  });
}

export async function regenerateRecoveryCodes(
  deps: AuthenticatorDeps,
  actor: Actor,
  currentPassword: string,
): Promise<{ recoveryCodes: string[] }> {
  const { db, config } = deps;
  await checkPassword(db, actor, currentPassword);
  return db.transaction().execute(async (trx) => {
    const app = await findAuthenticator(trx, actor);
    if (!app?.confirmed_at && (await countPasskeys(trx, actor.userId)) === 0) {
      throw conflict('Set up an authenticator app first.', undefined, 'no_authenticator');
    }
    const recoveryCodes = await newCodesFor(trx, config, actor);
    await logOwn(trx, deps, actor, 'user.recovery_codes_regenerated', 'recovery-codes');
    return { recoveryCodes };
  });
}

export async function newCodesFor(trx: DbOrTrx, config: Config, owner: OwnerKey): Promise<string[]> {
  const codes = newRecoveryCodes();
  await replaceRecoveryCodes(
    trx,
    owner,
    codes.map((code) => hashRecoveryCode(config, owner.userId, code)),
  );
  return codes;
}

export async function checkPassword(db: Db, owner: OwnerKey, currentPassword: string): Promise<void> {
  const user = await db
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', owner.userId)
    .where('organization_id', '=', owner.organizationId)
    .executeTakeFirstOrThrow();
  if (!user.password_hash || !(await verifyPassword(user.password_hash, currentPassword))) {
    throw fieldError('currentPassword', 'Your current password is not correct');
  }
}

/** The change in the activity log and, queued in the same transaction, the owner's notice. */
export async function logOwn(
  trx: DbOrTrx,
  deps: AuthenticatorDeps,
  actor: Actor,
  action: string,
  change: FactorChange,
): Promise<void> {
  const user = await trx
    .selectFrom('users as u')
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select(['u.first_name', 'u.last_name', 'u.email', 'o.name'])
    .where('u.id', '=', actor.userId)
    .executeTakeFirstOrThrow();
  const label = `${user.first_name} ${user.last_name}`.trim() || user.email;
  await recordActivity(trx, {
    organizationId: actor.organizationId,
    actor: { userId: actor.userId, label },
    action,
    target: { type: 'user', id: actor.userId, label },
    ip: actor.ip,
  });
  await deps.mailer.queue(
    trx,
    factorChangedMail(
      deps.config,
      { email: user.email, firstName: user.first_name, organizationName: user.name },
      change,
      { at: new Date(), ip: actor.ip },
    ),
  );
}
