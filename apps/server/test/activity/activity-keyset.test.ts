import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import type { ActivityList } from '@atrium/contracts/activity';
import { useAdminWorld } from '../support/admin-world.ts';
import { createOrganizationWithAdmin } from '../support/fixtures.ts';

const ROWS = 10_000;
const t = useAdminWorld();

beforeAll(async () => {
  const { org } = t;
  // Seven entries share each timestamp (and the first 49 share one microsecond-precise time),
  // so pages often end in the middle of a tie and only the id can order them.
  await sql`insert into activity_log (organization_id, actor_user_id, actor_label, action, target_type, target_id, target_label, created_at)
    select ${org.id}, ${org.admin.id}, 'Ada Admin',
           (array['domain.added', 'user.created', 'app.installed'])[1 + i % 3], 'item', i::text, 'item ' || i,
           timestamptz '2026-03-01 00:00:00.000001Z' + (greatest(i, 49) / 7) * interval '1.000001 second'
    from generate_series(1, ${ROWS}) as i`.execute(t.db);
  // Another organisation's entries interleave in time and must never show up.
  const other = await createOrganizationWithAdmin(t.db);
  await sql`insert into activity_log (organization_id, actor_label, action, target_label, created_at)
    select ${other.id}, 'System', 'domain.verified', 'other ' || i,
           timestamptz '2026-03-01 00:00:00Z' + i * interval '1 second'
    from generate_series(1, 500) as i`.execute(t.db);
});

it(`pages through ${ROWS.toLocaleString('en')} entries by keyset, returning every entry exactly once in order`, async () => {
  const ids: string[] = [];
  const keys: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await t.app.inject({
      url: `/api/activity?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      headers: t.adminSession.headers,
    });
    expect(res.statusCode).toBe(200);
    const page = res.json() as ActivityList;
    for (const entry of page.items) {
      ids.push(entry.target!.id!);
      keys.push(`${entry.createdAt}|${entry.id}`);
    }
    cursor = page.nextCursor;
    pages++;
  } while (cursor);

  expect(pages).toBe(ROWS / 200);
  expect(ids).toHaveLength(ROWS);
  expect(new Set(ids).size).toBe(ROWS);
  expect(ids.every((id) => Number(id) >= 1 && Number(id) <= ROWS)).toBe(true);
  // Newest first; within one millisecond the order is by id, descending.
  const sorted = [...keys].sort().reverse();
  expect(keys.map((k) => k.slice(0, 24))).toEqual(sorted.map((k) => k.slice(0, 24)));
});

it('pages through a filtered list the same way', async () => {
  let count = 0;
  let cursor: string | null = null;
  do {
    const res = await t.app.inject({
      url: `/api/activity?kind=user&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      headers: t.adminSession.headers,
    });
    const page = res.json() as ActivityList;
    expect(page.items.every((e) => e.action === 'user.created')).toBe(true);
    count += page.items.length;
    cursor = page.nextCursor;
  } while (cursor);
  expect(count).toBe(Math.floor(ROWS / 3) + (ROWS % 3 >= 1 ? 1 : 0));
});
