import type { ActivityEntry as ActivityEntryDto, ActivityList } from '@atrium/contracts/activity';
import { SYSTEM_ACTOR } from '@atrium/contracts/activity-kinds';
import type { Db } from '../../db/database.ts';
import { CSV_BOM, csvRow } from '../../lib/csv.ts';
import { decodeCursor, type KeysetPosition } from '../../lib/keyset.ts';
import { listActivity, listActors, type ActivityFilter, type ActivityRow } from './activity.repository.ts';

export interface FilterInput {
  actor?: string | undefined;
  kind?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

function toFilter(input: FilterInput): ActivityFilter {
  return {
    actor: input.actor,
    kind: input.kind,
    from: input.from ? new Date(input.from) : undefined,
    to: input.to ? new Date(input.to) : undefined,
  };
}

function toEntry(row: ActivityRow): ActivityEntryDto {
  return {
    id: row.id,
    actor: { userId: row.actor_user_id, label: row.actor_label },
    action: row.action,
    target: row.target_type ? { type: row.target_type, id: row.target_id, label: row.target_label } : null,
    ip: row.ip,
    details: row.details && typeof row.details === 'object' ? (row.details as Record<string, unknown>) : null,
    createdAt: row.created_at.toISOString(),
  };
}

export async function activityPage(
  db: Db,
  organizationId: string,
  query: FilterInput & { limit: number; cursor?: string | undefined },
): Promise<ActivityList> {
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const page = await listActivity(db, organizationId, toFilter(query), { limit: query.limit, after });
  return { items: page.rows.map(toEntry), nextCursor: page.nextCursor };
}

const MAX_ACTORS = 500;

export async function activityActors(
  db: Db,
  organizationId: string,
): Promise<{ actors: { value: string; label: string }[] }> {
  const actors = await listActors(db, organizationId, MAX_ACTORS);
  return {
    actors: actors.map((a) => ({
      value: a.userId ?? SYSTEM_ACTOR,
      label: a.userId ? a.label : 'System',
    })),
  };
}

const EXPORT_BATCH = 2000;
const CSV_HEADER = [
  'Time (UTC)',
  'Actor',
  'Actor id',
  'Action',
  'Object type',
  'Object',
  'Object id',
  'IP address',
  'Details',
];

/**
 * The filtered log as CSV, newest first. It walks the log in keyset batches so memory stays
 * bounded however long the log is; each batch is one indexed range query (pagination, not a
 * query per row).
 */
export async function* activityCsv(
  db: Db,
  organizationId: string,
  input: FilterInput,
): AsyncGenerator<string> {
  const filter = toFilter(input);
  yield CSV_BOM + csvRow(CSV_HEADER);
  let after: KeysetPosition | undefined;
  for (;;) {
    const page = await listActivity(db, organizationId, filter, { limit: EXPORT_BATCH, after });
    let chunk = '';
    for (const row of page.rows) {
      chunk += csvRow([
        row.created_at.toISOString(),
        row.actor_label,
        row.actor_user_id,
        row.action,
        row.target_type,
        row.target_label,
        row.target_id,
        row.ip,
        row.details ? JSON.stringify(row.details) : '',
      ]);
    }
    if (chunk) yield chunk;
    if (!page.nextCursor) return;
    after = decodeCursor(page.nextCursor);
  }
}
