import type { AcceptedInvitation, Invitation } from '@atrium/contracts/invitations';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { AppError, fieldError } from '../../lib/errors.ts';
import type { Mailer } from '../../lib/mail.ts';
import { hashPassword, passwordProblem } from '../../lib/passwords.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { issueSignInTicket } from '../auth/sign-in/sign-in-tickets.ts';
import { endUserAccess } from '../users/end-user-access.ts';
import { setUserPassword } from '../users/users.repository.ts';
import { consumeLink, findLinkByToken } from './invitations.repository.ts';
import { notifyPasswordChanged } from '../notifications/notify.ts';

const notValid = () =>
  new AppError(
    404,
    'link_not_found',
    'This link is not valid. Check that you opened the whole link from the e-mail.',
  );
const used = () =>
  new AppError(
    410,
    'link_used',
    'This link has already been used. Sign in with your password, or ask your administrator for a new link.',
  );
const expired = () =>
  new AppError(410, 'link_expired', 'This link has expired. Ask your administrator to send you a new one.');
const unusable = () =>
  new AppError(410, 'link_unusable', 'This link can no longer be used. Ask your administrator for help.');

type Link = NonNullable<Awaited<ReturnType<typeof findLinkByToken>>>;

async function usableLink(db: Db, token: string): Promise<Link> {
  const link = await findLinkByToken(db, token);
  if (!link) throw notValid();
  if (link.used_at) throw used();
  if (link.expired) throw expired();
  if (link.status === 'suspended' || (link.purpose === 'invite' && link.status !== 'invited'))
    throw unusable();
  return link;
}

/** What the set-password page shows before the user chooses a password. */
export async function describeLink(db: Db, token: string): Promise<Invitation> {
  const link = await usableLink(db, token);
  return {
    purpose: link.purpose,
    email: link.email,
    firstName: link.first_name,
    organizationName: link.organization_name,
    expiresAt: link.expires_at.toISOString(),
  };
}

/**
 * Sets the password behind a link, once. An invitation activates the account; a reset also
 * ends every session and token the user had. The link came by e-mail, which proves what the
 * sign-in code would, so the answer carries a single-use sign-in ticket: `next` signs the
 * browser straight in and opens the apps page.
 */
export async function acceptLink(
  deps: { db: Db; config: Config; mailer: Mailer },
  token: string,
  password: string,
  ip: string | null,
): Promise<AcceptedInvitation> {
  const { db } = deps;
  const link = await usableLink(db, token);
  const problem = passwordProblem(password);
  if (problem) throw fieldError('password', problem);
  const passwordHash = await hashPassword(password);
  const ticket = await db.transaction().execute(async (trx) => {
    // Two tabs submitting at once: the second finds the link already used.
    if (!(await consumeLink(trx, link.id))) throw used();
    await setUserPassword(trx, link.organization_id, link.user_id, passwordHash);
    if (link.purpose === 'reset') await endUserAccess(trx, link.user_id);
    await recordActivity(trx, {
      organizationId: link.organization_id,
      actor: { userId: link.user_id, label: `${link.first_name} ${link.last_name}` },
      action: link.purpose === 'invite' ? 'user.invitation_accepted' : 'user.password_reset_completed',
      target: { type: 'user', id: link.user_id, label: link.email },
      ip,
    });
    // An invitation sets the first password; only a reset changes one.
    if (link.purpose === 'reset') {
      await notifyPasswordChanged(
        trx,
        deps,
        { organizationId: link.organization_id, userId: link.user_id },
        'reset',
      );
    }
    return issueSignInTicket(trx, link.user_id);
  });
  const next = `/api/sso/start?${new URLSearchParams({ ticket, returnTo: '/application' })}`;
  return { email: link.email, next };
}
