import type { SessionResponse } from '@atrium/contracts/auth';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { notFound } from '../../../lib/errors.ts';
import { siteUrl } from '../../organizations/site-url.ts';
import type { SessionPrincipal } from './sessions.repository.ts';

/**
 * GET /api/session: who is signed in, their groups (admin = member of Dashboard), where the
 * profile panel's 'My account' leads, and the CSRF token.
 */
export async function findSessionView(
  db: Db,
  config: Config,
  principal: SessionPrincipal,
): Promise<SessionResponse> {
  const [user, groups] = await Promise.all([
    db
      .selectFrom('users as u')
      .innerJoin('organizations as o', 'o.id', 'u.organization_id')
      .select([
        'u.id',
        'u.first_name',
        'u.last_name',
        'u.email',
        'o.id as org_id',
        'o.name as org_name',
        'o.site_name',
      ])
      .where('u.id', '=', principal.userId)
      .where('u.organization_id', '=', principal.organizationId)
      .executeTakeFirst(),
    db
      .selectFrom('group_members as gm')
      .innerJoin('groups as g', 'g.id', 'gm.group_id')
      .select('g.name')
      .where('gm.user_id', '=', principal.userId)
      .where('gm.organization_id', '=', principal.organizationId)
      .orderBy('g.name_key')
      .execute(),
  ]);
  if (!user) throw notFound('User');
  return {
    user: {
      id: user.id,
      firstName: user.first_name,
      lastName: user.last_name,
      name: `${user.first_name} ${user.last_name}`.trim(),
      email: user.email,
      isAdmin: principal.isAdmin,
      groups: groups.map((g) => ({ name: g.name })),
    },
    organization: {
      id: user.org_id,
      name: user.org_name,
      siteName: user.site_name,
      siteUrl: siteUrl(config, user.site_name),
    },
    accountPortalUrl: config.accountPortalUrl,
    csrfToken: principal.csrfToken,
  };
}
