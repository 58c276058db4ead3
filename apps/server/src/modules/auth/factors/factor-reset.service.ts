import type { Config } from '../../../config.ts';
import type { Db, DbOrTrx } from '../../../db/database.ts';
import { notFound } from '../../../lib/errors.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import { deleteAppPassword, listAppPasswords } from '../../mail/app-passwords/app-passwords.repository.ts';
import { deleteFactorsOf } from './strong-factors.ts';
import { factorChangedMail } from './strong-sign-in-mail.ts';

/**
 * An admin's "Reset sign-in factors" on /users/:id, for a lost phone: the user's strong factors,
 * recovery codes and trusted browsers go, so the next sign-in is password and e-mailed code again
 * (followed by a new enrolment when the policy requires one). Logged, and the user is told.
 * With `revokeAppPasswords`, the user's app passwords go in the same transaction: a lost phone
 * usually holds one, and mail, calendars and contacts (IMAP, SMTP, DAV) sign in with it alone.
 */
export async function resetSignInFactors(
  deps: { db: Db; config: Config; mailer: Mailer },
  actor: { organizationId: string; userId: string; label: string; ip: string },
  userId: string,
  options: { revokeAppPasswords?: boolean } = {},
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const user = await trx
      .selectFrom('users as u')
      .innerJoin('organizations as o', 'o.id', 'u.organization_id')
      .select(['u.id', 'u.email', 'u.first_name', 'u.last_name', 'o.name'])
      .where('u.id', '=', userId)
      .where('u.organization_id', '=', actor.organizationId)
      .executeTakeFirst();
    // Another organisation's user is as unknown as one that does not exist.
    if (!user) throw notFound('The user');
    const owner = { organizationId: actor.organizationId, userId };
    const removed = await deleteFactorsOf(trx, owner);
    const revoked = options.revokeAppPasswords ? await revokeAllAppPasswords(trx, owner) : [];
    const target = {
      type: 'user',
      id: userId,
      label: `${user.first_name} ${user.last_name}`.trim() || user.email,
    };
    const by = { userId: actor.userId, label: actor.label };
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: by,
      action: 'user.sign_in_factors_reset',
      target,
      ip: actor.ip,
      details: { removed, appPasswordsRevoked: revoked.length },
    });
    // Its own line in the activity log (which shows actions, not details): devices stop syncing.
    if (revoked.length > 0) {
      await recordActivity(trx, {
        organizationId: actor.organizationId,
        actor: by,
        action: 'user.app_passwords_revoked',
        target,
        ip: actor.ip,
        details: { by: 'admin', names: revoked },
      });
    }
    await deps.mailer.queue(
      trx,
      factorChangedMail(
        deps.config,
        { email: user.email, firstName: user.first_name, organizationName: user.name },
        'reset',
        { at: new Date(), ip: actor.ip, appPasswordsRevoked: revoked.length > 0 },
      ),
    );
  });
}

/** Deletes every app password of the user; returns their names. */
async function revokeAllAppPasswords(trx: DbOrTrx, owner: { organizationId: string; userId: string }) {
  const names: string[] = [];
  // A user has at most 50 (MAX_APP_PASSWORDS); the list's limit is above that.
  for (const appPassword of await listAppPasswords(trx, owner)) {
    const deleted = await deleteAppPassword(trx, owner, appPassword.id);
    if (deleted) names.push(deleted.name);
  }
  return names;
}
