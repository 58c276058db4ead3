import { SYSTEM_ACTOR } from '@atrium/contracts/activity-kinds';
import { sql, type Selectable } from 'kysely';
import type { ActivityLogTable, DbOrTrx } from '../../db/database.ts';
import { afterCursor, createdAtKey, pageOf, type KeysetPosition } from '../../lib/keyset.ts';

export interface ActivityEntry {
  organizationId: string;
  /** Null when the system acted (background jobs). */
  actor: { userId: string; label: string } | null;
  /** Dotted kind, e.g. `domain.verified`, `user.created`, `app.installed`. */
  action: string;
  target?: { type: string; id: string; label: string };
  ip?: string | null;
  details?: Record<string, unknown>;
}

/**
 * Appends to the organisation's activity log. Pass the transaction of the change itself,
 * so a change that rolls back leaves no entry.
 */
export async function recordActivity(db: DbOrTrx, entry: ActivityEntry): Promise<void> {
  await db
    .insertInto('activity_log')
    .values({
      organization_id: entry.organizationId,
      actor_user_id: entry.actor?.userId ?? null,
      actor_label: entry.actor?.label ?? 'System',
      action: entry.action,
      target_type: entry.target?.type ?? null,
      target_id: entry.target?.id ?? null,
      target_label: entry.target?.label ?? null,
      ip: entry.ip ?? null,
      details: entry.details ? JSON.stringify(entry.details) : undefined,
    })
    .execute();
}

/** Filters of the activity page and the CSV export; `kind` with a dot is one exact action. */
export interface ActivityFilter {
  /** A user id, or 'system' for entries without a user actor. */
  actor?: string | undefined;
  kind?: string | undefined;
  from?: Date | undefined;
  /** Exclusive. */
  to?: Date | undefined;
}

/** A row of the log as read: its JSON details not yet checked, and its keyset position. */
export type ActivityRow = Omit<Selectable<ActivityLogTable>, 'organization_id' | 'details'> & {
  details: unknown;
  created_key: string;
};

/**
 * One page of the organisation's log, newest first. Each filter matches one of the indexes of
 * migration 0600 (organisation, actor | kind | action, created_at desc, id desc), so a page is a
 * range scan however long the log is.
 */
export async function listActivity(
  db: DbOrTrx,
  organizationId: string,
  filter: ActivityFilter,
  page: { limit: number; after?: KeysetPosition | undefined },
): Promise<{ rows: ActivityRow[]; nextCursor: string | null }> {
  let query = db
    .selectFrom('activity_log as a')
    .select([
      'a.id',
      'a.actor_user_id',
      'a.actor_label',
      'a.action',
      'a.target_type',
      'a.target_id',
      'a.target_label',
      'a.ip',
      'a.details',
      'a.created_at',
    ])
    .select(createdAtKey('a').as('created_key'))
    .where('a.organization_id', '=', organizationId);
  if (filter.actor === SYSTEM_ACTOR) query = query.where('a.actor_user_id', 'is', null);
  else if (filter.actor) query = query.where('a.actor_user_id', '=', filter.actor);
  if (filter.kind?.includes('.')) query = query.where('a.action', '=', filter.kind);
  else if (filter.kind) query = query.where(sql`split_part(a.action, '.', 1)`, '=', filter.kind);
  if (filter.from) query = query.where('a.created_at', '>=', filter.from);
  if (filter.to) query = query.where('a.created_at', '<', filter.to);
  if (page.after) query = query.where(afterCursor('a', page.after));
  const rows = await query
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return pageOf(rows, page.limit);
}

/**
 * Everyone who appears as an actor in the organisation's log, for the actor filter, with the
 * label of their latest entry (a renamed user shows under the current name). A loose index scan
 * over the actor index: one index probe per distinct actor instead of reading every entry, so it
 * costs the same for a log of a thousand entries or of millions.
 */
export async function listActors(
  db: DbOrTrx,
  organizationId: string,
  limit: number,
): Promise<{ userId: string | null; label: string }[]> {
  const result = await sql<{ actor_user_id: string | null; label: string }>`
    with recursive ids(id, n) as (
      (select actor_user_id, 1 from activity_log
        where organization_id = ${organizationId} and actor_user_id is not null
        order by actor_user_id limit 1)
      union all
      select (select a.actor_user_id from activity_log a
               where a.organization_id = ${organizationId} and a.actor_user_id > ids.id
               order by a.actor_user_id limit 1), ids.n + 1
      from ids where ids.id is not null and ids.n < ${limit}
    )
    select ids.id as actor_user_id, latest.actor_label as label
    from ids
    cross join lateral (
      select actor_label from activity_log a
      where a.organization_id = ${organizationId} and a.actor_user_id = ids.id
      order by a.created_at desc, a.id desc limit 1
    ) latest
    where ids.id is not null
    union all
    select null, 'System'
    where exists (select 1 from activity_log
                  where organization_id = ${organizationId} and actor_user_id is null)`.execute(db);
  const people = result.rows
    .filter((row) => row.actor_user_id !== null)
    .map((row) => ({ userId: row.actor_user_id, label: row.label }))
    .sort((a, b) => a.label.localeCompare(b.label));
  // The system, when it acted, comes after the people.
  const system = result.rows.some((row) => row.actor_user_id === null);
  return system ? [...people, { userId: null, label: 'System' }] : people;
}
