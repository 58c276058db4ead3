import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';

export interface DashboardCounts {
  users: { total: number; active: number; invited: number; suspended: number };
  domains: { total: number; verified: number; pending: number; failed: number };
  groups: number;
  apps: number;
  /** Seats bought; null before the organisation's subscription exists. */
  seats: number | null;
}

/** Every count of the admin home in one statement (each subquery uses an organisation index). */
export async function countOrganization(db: DbOrTrx, organizationId: string): Promise<DashboardCounts> {
  const { rows } = await sql<{
    users_total: number;
    users_active: number;
    users_invited: number;
    users_suspended: number;
    domains_total: number;
    domains_verified: number;
    domains_pending: number;
    domains_failed: number;
    groups: number;
    apps: number;
    seats: number | null;
  }>`
    select u.total as users_total, u.active as users_active, u.invited as users_invited,
           u.suspended as users_suspended,
           d.total as domains_total, d.verified as domains_verified, d.pending as domains_pending,
           d.failed as domains_failed,
           (select count(*)::int from groups where organization_id = ${organizationId}) as groups,
           (select count(*)::int from apps where organization_id = ${organizationId}) as apps,
           (select seats from subscriptions where organization_id = ${organizationId}) as seats
    from (select count(*)::int as total,
                 (count(*) filter (where status = 'active'))::int as active,
                 (count(*) filter (where status = 'invited'))::int as invited,
                 (count(*) filter (where status = 'suspended'))::int as suspended
          from users where organization_id = ${organizationId}) u,
         (select count(*)::int as total,
                 (count(*) filter (where state = 'verified'))::int as verified,
                 (count(*) filter (where state = 'pending'))::int as pending,
                 (count(*) filter (where state = 'failed'))::int as failed
          from domains where organization_id = ${organizationId}) d
  `.execute(db);
  const r = rows[0]!;
  return {
    users: {
      total: r.users_total,
      active: r.users_active,
      invited: r.users_invited,
      suspended: r.users_suspended,
    },
    domains: {
      total: r.domains_total,
      verified: r.domains_verified,
      pending: r.domains_pending,
      failed: r.domains_failed,
    },
    groups: r.groups,
    apps: r.apps,
    seats: r.seats,
  };
}

/** The newest entries of the activity log (its (organization_id, created_at desc, id desc) index). */
export async function recentActivity(db: DbOrTrx, organizationId: string, limit: number) {
  return db
    .selectFrom('activity_log')
    .select(['id', 'actor_label', 'action', 'target_type', 'target_label', 'created_at'])
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
