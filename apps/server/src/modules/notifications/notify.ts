import type { Config } from '../../config.ts';
import type { DbOrTrx } from '../../db/database.ts';
import type { Mailer } from '../../lib/mail.ts';
import { passwordChangedMail, type PasswordChange } from './notice-mail.ts';

/*
 * The internal API other areas call to notify people: one line in a service, inside the
 * transaction of the change (so a change that rolls back notifies nobody).
 *
 *   await notifyAdmins(trx, {
 *     organizationId,
 *     kind: 'domain.verified',             // area.event; the console picks an icon by the area
 *     title: `${domain} is verified`,       // one short sentence, shown in the dropdown
 *     body: 'Users can now get addresses on it.', // optional second line
 *     link: '/domain',                      // optional console path opened from the list
 *   });
 *   await notifyUsers(trx, [userId], { organizationId, kind: 'password.changed', title: … });
 *
 * Kinds in use: domain.verified, domain.failed, user.added, app.installed, app.logout_refused,
 * setup.steps_left, password.changed, mail.sending_limit (once per sending window). Titles are
 * stored as written (not translated later), so write them for the recipient. Delivery is by
 * polling (GET /api/notifications every 30 s from each console), so there is nothing to publish
 * after the commit.
 */

export interface NotificationDraft {
  organizationId: string;
  /** e.g. `domain.verified`, `user.added`, `app.installed`, `setup.steps_left`, `password.changed`. */
  kind: string;
  title: string;
  body?: string;
  /** A console path to open, e.g. `/domain`. */
  link?: string;
}

/**
 * Notifies the given users; call it inside the change's transaction. Only users of
 * `draft.organizationId` can receive it: ids of other organisations' users are a bug in the
 * caller, and it throws (rolling the change back) rather than leak across organisations.
 */
export async function notifyUsers(db: DbOrTrx, userIds: string[], draft: NotificationDraft): Promise<void> {
  const unique = [...new Set(userIds)];
  if (unique.length === 0) return;
  const inserted = await db
    .insertInto('notifications')
    .columns(['organization_id', 'user_id', 'kind', 'title', 'body', 'link'])
    .expression((eb) =>
      eb
        .selectFrom('users as u')
        .where('u.id', 'in', unique)
        .where('u.organization_id', '=', draft.organizationId)
        .select((s) => [
          s.val(draft.organizationId).as('organization_id'),
          'u.id',
          s.val(draft.kind).as('kind'),
          s.val(draft.title).as('title'),
          s.val(draft.body ?? '').as('body'),
          s.val(draft.link ?? null).as('link'),
        ]),
    )
    .returning('id')
    .execute();
  if (inserted.length !== unique.length) {
    throw new Error(
      `notifyUsers(${draft.kind}): some recipients are not users of organisation ${draft.organizationId}`,
    );
  }
}

/** Notifies every admin (member of Dashboard) of the organisation, in one statement. */
export async function notifyAdmins(db: DbOrTrx, draft: NotificationDraft): Promise<void> {
  await db
    .insertInto('notifications')
    .columns(['organization_id', 'user_id', 'kind', 'title', 'body', 'link'])
    .expression((eb) =>
      eb
        .selectFrom('group_members as gm')
        .innerJoin('groups as g', 'g.id', 'gm.group_id')
        .where('g.organization_id', '=', draft.organizationId)
        .where('g.is_system', '=', true)
        .select((s) => [
          s.val(draft.organizationId).as('organization_id'),
          'gm.user_id',
          s.val(draft.kind).as('kind'),
          s.val(draft.title).as('title'),
          s.val(draft.body ?? '').as('body'),
          s.val(draft.link ?? null).as('link'),
        ]),
    )
    .execute();
}

export const SETUP_STEPS_LEFT = 'setup.steps_left';

/**
 * "Setup steps left" for every admin: the setup wizard calls it when an admin finishes or leaves
 * the wizard with steps still open (e.g. "verify later"), and may call it again whenever the open
 * steps change (a daily job can call it too). Each admin keeps one current reminder: an unread
 * older one is replaced rather than piling up, and an empty `stepsLeft` just withdraws it.
 *
 *   await notifySetupStepsLeft(trx, { organizationId, stepsLeft: ['Verify example.com', 'Add users'] });
 */
export async function notifySetupStepsLeft(
  db: DbOrTrx,
  input: { organizationId: string; stepsLeft: string[] },
): Promise<void> {
  await db
    .deleteFrom('notifications')
    .where('organization_id', '=', input.organizationId)
    // Through the admins, so the unread-per-user index serves it.
    .where('user_id', 'in', (eb) =>
      eb
        .selectFrom('group_members as gm')
        .innerJoin('groups as g', 'g.id', 'gm.group_id')
        .where('g.organization_id', '=', input.organizationId)
        .where('g.is_system', '=', true)
        .select('gm.user_id'),
    )
    .where('kind', '=', SETUP_STEPS_LEFT)
    .where('read_at', 'is', null)
    .execute();
  const count = input.stepsLeft.length;
  if (count === 0) return;
  await notifyAdmins(db, {
    organizationId: input.organizationId,
    kind: SETUP_STEPS_LEFT,
    title: count === 1 ? '1 setup step left' : `${count} setup steps left`,
    body: input.stepsLeft.join(' · '),
    link: '/dashboard',
  });
}

const IF_NOT_YOU = 'If this was not you, tell your administrator.';
const PASSWORD_CHANGES: Record<PasswordChange, { title: string; body: string }> = {
  changed: {
    title: 'Your password was changed',
    body: `Your other sessions were signed out. ${IF_NOT_YOU}`,
  },
  'set-by-admin': {
    title: 'An administrator set a new password for you',
    body: `You were signed out everywhere. ${IF_NOT_YOU}`,
  },
  reset: { title: 'Your password was reset', body: `You were signed out everywhere. ${IF_NOT_YOU}` },
};

/**
 * "Password changed on your account", to the account's owner only, however it changed, so a
 * change they did not make stands out: in the console and by e-mail, both queued in the
 * change's transaction (the worker sends the e-mail once the answer is out).
 *
 *   await notifyPasswordChanged(trx, { mailer, config }, { organizationId, userId }, 'reset');
 */
export async function notifyPasswordChanged(
  db: DbOrTrx,
  mail: { mailer: Mailer; config: Config },
  user: { organizationId: string; userId: string },
  how: PasswordChange,
): Promise<void> {
  await notifyUsers(db, [user.userId], {
    organizationId: user.organizationId,
    kind: 'password.changed',
    ...PASSWORD_CHANGES[how],
    link: '/profile',
  });
  const owner = await db
    .selectFrom('users as u')
    .innerJoin('organizations as o', 'o.id', 'u.organization_id')
    .select(['u.email', 'u.first_name', 'o.name'])
    .where('u.id', '=', user.userId)
    .where('u.organization_id', '=', user.organizationId)
    .executeTakeFirstOrThrow();
  await mail.mailer.queue(
    db,
    passwordChangedMail(
      mail.config,
      { email: owner.email, firstName: owner.first_name, organizationName: owner.name },
      how,
      new Date(),
    ),
  );
}
