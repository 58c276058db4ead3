import type { Db } from '../../db/database.ts';
import { conflict, fieldError, forbidden, notFound } from '../../lib/errors.ts';
import { hashPassword, passwordProblem } from '../../lib/passwords.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { assertDashboardKeepsAnAdmin } from '../groups/dashboard-rule.ts';
import { issueSetPasswordLink, revokeSetPasswordLinks } from '../invitations/invitations.repository.ts';
import { endUserAccess } from './end-user-access.ts';
import { invitationAddress, noInvitationAddressError } from '../invitations/invitation-address.ts';
import { sendSetPasswordMail } from './users.service.ts';
import {
  actorLabel,
  deleteUser,
  findUser,
  lockUser,
  setUserPassword,
  setUserStatus,
  type UserRow,
} from './users.repository.ts';
import type { Actor } from '../organizations/actor.ts';
import type { UsersDeps } from './users.deps.ts';
import { notifyPasswordChanged } from '../notifications/notify.ts';
import { queueDavCollectionsRemoval } from '../dav/dav-collections.job.ts';
import { endConsoleSession } from '../auth/console-client/end-console-session.ts';

const LAST_ADMIN = (verb: string) =>
  `Dashboard must keep at least one active member. Add another administrator before you ${verb} this user.`;

async function targetOf(db: Db, actor: Actor, userId: string, selfMessage?: string): Promise<UserRow> {
  const user = await findUser(db, actor.organizationId, userId);
  if (!user) throw notFound('User');
  if (selfMessage && user.id === actor.userId) throw forbidden(selfMessage);
  return user;
}

/**
 * Suspends a user: they can no longer sign in and every session and token of theirs ends
 * now. Not yourself; not the last active member of Dashboard.
 */
export async function suspendUser(db: Db, actor: Actor, userId: string): Promise<void> {
  const user = await targetOf(db, actor, userId, 'You cannot suspend yourself');
  if (user.status === 'suspended') return;
  const label = await actorLabel(db, actor.organizationId, actor.userId);
  await db.transaction().execute(async (trx) => {
    await assertDashboardKeepsAnAdmin(trx, actor.organizationId, userId, LAST_ADMIN('suspend'));
    if (!(await lockUser(trx, actor.organizationId, userId))) throw notFound('User');
    await setUserStatus(trx, actor.organizationId, userId, 'suspended');
    await revokeSetPasswordLinks(trx, actor.organizationId, userId);
    await endUserAccess(trx, userId);
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label },
      action: 'user.suspended',
      target: { type: 'user', id: userId, label: user.email },
      ip: actor.ip,
    });
  });
}

/** Lets a suspended user sign in again; one who never set a password goes back to invited. */
export async function reactivateUser(db: Db, actor: Actor, userId: string): Promise<void> {
  const user = await targetOf(db, actor, userId);
  if (user.status !== 'suspended') return;
  const label = await actorLabel(db, actor.organizationId, actor.userId);
  await db.transaction().execute(async (trx) => {
    await setUserStatus(trx, actor.organizationId, userId, user.password_hash ? 'active' : 'invited');
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label },
      action: 'user.reactivated',
      target: { type: 'user', id: userId, label: user.email },
      ip: actor.ip,
    });
  });
}

/** Deletes a user for good, after ending their sessions and tokens. Same rules as suspension. */
export async function removeUser(db: Db, actor: Actor, userId: string): Promise<void> {
  const user = await targetOf(db, actor, userId, 'You cannot delete yourself');
  const label = await actorLabel(db, actor.organizationId, actor.userId);
  await db.transaction().execute(async (trx) => {
    await assertDashboardKeepsAnAdmin(trx, actor.organizationId, userId, LAST_ADMIN('delete'));
    if (!(await lockUser(trx, actor.organizationId, userId))) throw notFound('User');
    await endUserAccess(trx, userId);
    await deleteUser(trx, actor.organizationId, userId);
    await queueDavCollectionsRemoval(trx, { organizationId: actor.organizationId, userId });
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label },
      action: 'user.deleted',
      target: { type: 'user', id: userId, label: user.email },
      ip: actor.ip,
    });
  });
}

/**
 * An admin sets a user's password. Everything the user was signed in with ends, and any
 * pending set-password link stops working. Your own password is changed on your profile.
 */
export async function adminSetPassword(
  deps: UsersDeps,
  actor: Actor,
  userId: string,
  password: string,
): Promise<void> {
  const { db } = deps;
  const user = await targetOf(db, actor, userId, 'Change your own password on your profile page');
  if (user.status === 'suspended') throw conflict('Reactivate this user before setting a password');
  const problem = passwordProblem(password);
  if (problem) throw fieldError('password', problem);
  const passwordHash = await hashPassword(password);
  const label = await actorLabel(db, actor.organizationId, actor.userId);
  await db.transaction().execute(async (trx) => {
    await setUserPassword(trx, actor.organizationId, userId, passwordHash);
    await revokeSetPasswordLinks(trx, actor.organizationId, userId);
    await endUserAccess(trx, userId);
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label },
      action: 'user.password_set',
      target: { type: 'user', id: userId, label: user.email },
      ip: actor.ip,
    });
    await notifyPasswordChanged(trx, deps, { organizationId: actor.organizationId, userId }, 'set-by-admin');
  });
}

/**
 * E-mails a set-password link: an invitation again for a user who has not set a password
 * yet, otherwise a password reset. The user keeps their current password until they use it.
 */
export async function sendPasswordLink(
  deps: UsersDeps,
  actor: Actor,
  userId: string,
): Promise<{ mailSent: boolean; sentTo: string }> {
  const { db } = deps;
  const user = await targetOf(db, actor, userId, 'Change your own password on your profile page');
  if (user.status === 'suspended') throw conflict('Reactivate this user before sending a link');
  const purpose = user.status === 'invited' ? 'invite' : 'reset';
  // An invitation goes where it reaches the person (invitation-address.ts); a reset, to the account.
  let sentTo = user.email;
  if (purpose === 'invite') {
    const to = await invitationAddress(db, deps.config, {
      email: user.email,
      personalEmail: user.personal_email,
    });
    if (!to) throw noInvitationAddressError(user.email);
    sentTo = to;
  }
  const label = await actorLabel(db, actor.organizationId, actor.userId);
  const link = await db.transaction().execute(async (trx) => {
    const issued = await issueSetPasswordLink(trx, actor.organizationId, userId, purpose);
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label },
      action: purpose === 'invite' ? 'user.invitation_sent' : 'user.password_reset_sent',
      target: { type: 'user', id: userId, label: user.email },
      ip: actor.ip,
    });
    return issued;
  });
  const mailSent = await sendSetPasswordMail(
    deps,
    actor,
    { ...user, to: sentTo },
    { purpose, ...link },
    label,
  );
  return { mailSent, sentTo };
}

/**
 * Ends one of a user's sessions (the user's page lists them): the console session and the SSO
 * session behind it, so that device has to sign in again.
 */
export async function endSession(db: Db, actor: Actor, userId: string, sessionId: string): Promise<void> {
  const user = await targetOf(db, actor, userId);
  const label = await actorLabel(db, actor.organizationId, actor.userId);
  await db.transaction().execute(async (trx) => {
    const ended = await endConsoleSession(trx, {
      organizationId: actor.organizationId,
      userId: user.id,
      sessionId,
    });
    if (!ended) throw notFound('Session');
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label },
      action: 'user.session_ended',
      target: { type: 'user', id: user.id, label: user.email },
      ip: actor.ip,
    });
  });
}
