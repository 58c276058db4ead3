import { describeUserAgent } from '../../lib/user-agent.ts';
import type { addUserSchema, CreatedUser, UserDetail } from '@atrium/contracts/users';
import type { z } from 'zod';
import type { DbOrTrx } from '../../db/database.ts';
import { fieldError, notFound } from '../../lib/errors.ts';
import { hashPassword, passwordProblem } from '../../lib/passwords.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { addUserToGroups, groupsByIds } from '../groups/groups.repository.ts';
import { issueSetPasswordLink, pendingLinkOf } from '../invitations/invitations.repository.ts';
import { setPasswordMail } from '../invitations/set-password-mail.ts';
import { invitationAddress, noInvitationAddressError } from '../invitations/invitation-address.ts';
import { notifyAdmins } from '../notifications/notify.ts';
import { claimSeat } from '../subscriptions/subscription-limits.ts';
import { listAppsOf } from './user-apps.ts';
import { assertEmailDomainAllowed } from './email-domains.ts';
import { toSummary } from './users-list.service.ts';
import { groupsOfUsers } from './users-list.repository.ts';
import {
  actorLabel,
  emailInUse,
  findUser,
  insertUser,
  listUserSessions,
  updateUserNames,
  type UserRow,
} from './users.repository.ts';
import type { Actor } from '../organizations/actor.ts';
import type { UsersDeps } from './users.deps.ts';

export const ADDRESS_IN_USE = 'This address is already in use';
export const PERSONAL_IS_OWN =
  'This is the address being created here. Give an address of the person’s outside Atrium, or leave it empty';

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23505';

export async function organizationName(db: DbOrTrx, organizationId: string): Promise<string> {
  const row = await db
    .selectFrom('organizations')
    .select('name')
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return row.name;
}

/**
 * Adds a user: an address on an allowed domain that nobody in the whole
 * deployment uses yet, groups of this organisation, and either a first password or an
 * invitation e-mail. One transaction; the e-mail goes out after it commits.
 */
export async function addUser(
  deps: UsersDeps,
  actor: Actor,
  input: z.output<typeof addUserSchema>,
): Promise<CreatedUser> {
  const { db, config } = deps;
  const orgId = actor.organizationId;
  const email = `${input.localPart.toLowerCase()}@${input.domain}`;
  await assertEmailDomainAllowed(db, orgId, input.domain, config.allowUnverifiedDomains);
  if (await emailInUse(db, email)) throw fieldError('localPart', ADDRESS_IN_USE);
  const personalEmail = input.personalEmail ?? null;
  if (personalEmail === email) throw fieldError('personalEmail', PERSONAL_IS_OWN);
  // Where the invitation goes, decided before anything is written: refused when nowhere reaches them.
  let inviteTo: string | null = null;
  if (input.credential === 'invitation') {
    inviteTo = await invitationAddress(db, config, { email, personalEmail });
    if (!inviteTo) throw noInvitationAddressError(email, 'personalEmail');
  }
  let passwordHash: string | null = null;
  if (input.credential === 'password') {
    const problem = passwordProblem(input.password ?? '');
    if (problem) throw fieldError('password', problem);
    passwordHash = await hashPassword(input.password!);
  }
  const groupIds = [...new Set(input.groupIds)];
  const groups = await groupsByIds(db, orgId, groupIds);
  if (groups.length !== groupIds.length) {
    throw fieldError('groupIds', 'One of the chosen groups no longer exists. Reload the page and try again.');
  }
  const adminName = await actorLabel(db, orgId, actor.userId);

  let created: UserRow;
  let link: Awaited<ReturnType<typeof issueSetPasswordLink>> | undefined;
  try {
    ({ created, link } = await db.transaction().execute(async (trx) => {
      // Locks the subscription: concurrent adds wait here and count this one's user.
      await claimSeat(trx, config, orgId);
      const user = await insertUser(trx, orgId, {
        firstName: input.firstName,
        lastName: input.lastName,
        email,
        passwordHash,
        status: passwordHash ? 'active' : 'invited',
        personalEmail,
      });
      await addUserToGroups(trx, orgId, user.id, groupIds);
      const invite = passwordHash ? undefined : await issueSetPasswordLink(trx, orgId, user.id, 'invite');
      const name = `${user.first_name} ${user.last_name}`;
      await recordActivity(trx, {
        organizationId: orgId,
        actor: { userId: actor.userId, label: adminName },
        action: 'user.added',
        target: { type: 'user', id: user.id, label: email },
        ip: actor.ip,
        details: { invited: !passwordHash, groups: groups.map((g) => g.name) },
      });
      await notifyAdmins(trx, {
        organizationId: orgId,
        kind: 'user.added',
        title: `${name} was added`,
        body: `${adminName} added ${name} (${email})${passwordHash ? '' : ' and sent an invitation'}.`,
        link: `/users/${user.id}`,
      });
      return { created: user, link: invite };
    }));
  } catch (error) {
    // Someone took the address between the check and the insert.
    if (isUniqueViolation(error)) throw fieldError('localPart', ADDRESS_IN_USE);
    throw error;
  }

  deps.jobs?.wake();
  let mailSent = false;
  if (link) {
    mailSent = await sendSetPasswordMail(
      deps,
      actor,
      { ...created, to: inviteTo! },
      { purpose: 'invite', ...link },
      adminName,
    );
  }
  const summary = toSummary(
    created,
    groups.map((g) => ({ id: g.id, name: g.name, isSystem: g.is_system })),
  );
  return {
    user: summary,
    invited: link !== undefined,
    mailSent,
    invitationSentTo: link ? inviteTo : null,
  };
}

/**
 * Queues a set-password e-mail and tries it at once; false when it has not gone out yet (the
 * queue keeps trying) or could not even be queued (logged).
 */
export async function sendSetPasswordMail(
  deps: UsersDeps,
  actor: Actor,
  user: Pick<UserRow, 'email' | 'first_name'> & { to?: string },
  link: { purpose: 'invite' | 'reset'; token: string; expiresAt: Date },
  adminName: string,
): Promise<boolean> {
  try {
    const orgName = await organizationName(deps.db, actor.organizationId);
    const { sent } = await deps.mailer.send(
      setPasswordMail(
        deps.config,
        link,
        { email: user.email, firstName: user.first_name, ...(user.to ? { to: user.to } : {}) },
        {
          organizationName: orgName,
          adminName,
        },
      ),
    );
    return sent;
  } catch (error) {
    actor.log.error({ err: error }, 'could not send the set-password e-mail');
    return false;
  }
}

/** A user's page: details, groups, sessions, pending link and (once the apps area has them) apps. */
export async function getUserDetail(db: DbOrTrx, actor: Actor, userId: string): Promise<UserDetail> {
  const orgId = actor.organizationId;
  const user = await findUser(db, orgId, userId);
  if (!user) throw notFound('User');
  const [groups, sessions, pending, apps] = await Promise.all([
    groupsOfUsers(db, orgId, [user.id]),
    listUserSessions(db, orgId, user.id),
    pendingLinkOf(db, orgId, user.id),
    listAppsOf(db, orgId, user.id),
  ]);
  return {
    ...toSummary(user, groups.get(user.id) ?? []),
    personalEmail: user.personal_email,
    passwordChangedAt: user.password_changed_at?.toISOString() ?? null,
    pendingLink: pending ? { purpose: pending.purpose, expiresAt: pending.expires_at.toISOString() } : null,
    isSelf: user.id === actor.userId,
    sessions: sessions.map((s) => ({
      id: s.id,
      createdAt: s.created_at.toISOString(),
      lastSeenAt: s.last_seen_at.toISOString(),
      expiresAt: s.expires_at.toISOString(),
      userAgent: s.user_agent,
      browser: describeUserAgent(s.user_agent ?? undefined),
      ip: s.ip,
    })),
    apps,
  };
}

export async function updateUser(
  db: DbOrTrx,
  actor: Actor,
  userId: string,
  names: { firstName: string; lastName: string; personalEmail?: string | null },
): Promise<void> {
  const orgId = actor.organizationId;
  const user = await findUser(db, orgId, userId);
  if (!user) throw notFound('User');
  if (names.personalEmail && names.personalEmail === user.email) {
    throw fieldError('personalEmail', PERSONAL_IS_OWN);
  }
  const label = await actorLabel(db, orgId, actor.userId);
  await db.transaction().execute(async (trx) => {
    await updateUserNames(trx, orgId, userId, names);
    await recordActivity(trx, {
      organizationId: orgId,
      actor: { userId: actor.userId, label },
      action: 'user.updated',
      target: { type: 'user', id: userId, label: user.email },
      ip: actor.ip,
    });
  });
}
