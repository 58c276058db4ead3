import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { notFound } from '../../../lib/errors.ts';
import type { Mailer } from '../../../lib/mail.ts';
import { recordActivity } from '../../activity/activity.repository.ts';
import { deleteFactorsOf } from './strong-factors.ts';
import { factorChangedMail } from './strong-sign-in-mail.ts';

/**
 * An admin's "Reset sign-in factors" on /users/:id, for a lost phone: the user's strong factors,
 * recovery codes and trusted browsers go, so the next sign-in is password and e-mailed code again
 * (followed by a new enrolment when the policy requires one). Logged, and the user is told.
 */
export async function resetSignInFactors(
  deps: { db: Db; config: Config; mailer: Mailer },
  actor: { organizationId: string; userId: string; label: string; ip: string },
  userId: string,
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
    const removed = await deleteFactorsOf(trx, { organizationId: actor.organizationId, userId });
    await recordActivity(trx, {
      organizationId: actor.organizationId,
      actor: { userId: actor.userId, label: actor.label },
      action: 'user.sign_in_factors_reset',
      target: {
        type: 'user',
        id: userId,
        label: `${user.first_name} ${user.last_name}`.trim() || user.email,
      },
      ip: actor.ip,
      details: { removed },
    });
    await deps.mailer.queue(
      trx,
      factorChangedMail(
        deps.config,
        { email: user.email, firstName: user.first_name, organizationName: user.name },
        'reset',
        { at: new Date(), ip: actor.ip },
      ),
    );
  });
}
