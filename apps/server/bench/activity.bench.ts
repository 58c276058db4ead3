// Lists a large activity log page by page through the activity service (keyset pagination: the
// query, the mapping and the cursor; not HTTP, whose per-address rate limit would cap the walk), and prints
// the median and 95th percentile per page, for the whole log and for a filtered one, plus the
// plan of the deepest page. PGlite by default; TEST_DATABASE_URL=postgres://… for PostgreSQL.
// Rows: BENCH_ACTIVITY_ROWS (default 10,000). Measures only; never fails on a figure.
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { activityActors, activityCsv, activityPage } from '../src/modules/activity/activity.service.ts';
import { createOrganizationWithAdmin } from '../test/support/fixtures.ts';
import { createTestApp } from '../test/support/test-app.ts';

const ROWS = Number(process.env.BENCH_ACTIVITY_ROWS ?? 10_000);
const PAGE = 50;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const t = await createTestApp();
try {
  const org = await createOrganizationWithAdmin(t.db);
  // Noise from other organisations, so the organisation filter has work to do.
  for (const _ of [1, 2]) {
    const other = await createOrganizationWithAdmin(t.db);
    await sql`insert into activity_log (organization_id, actor_label, action, created_at)
      select ${other.id}, 'System', 'domain.verified', now() - i * interval '1 second'
      from generate_series(1, ${ROWS}) as i`.execute(t.db);
  }
  const seeded = performance.now();
  await sql`insert into activity_log (organization_id, actor_user_id, actor_label, action, target_type, target_id, target_label, ip, created_at)
    select ${org.id}, case when i % 5 = 0 then null else ${org.admin.id}::uuid end,
           case when i % 5 = 0 then 'System' else 'Ada Admin' end,
           (array['domain.added', 'domain.verified', 'user.created', 'app.installed', 'group.created'])[1 + i % 5],
           'item', i::text, 'item ' || i, '203.0.113.9', now() - (i / 3) * interval '1 second'
    from generate_series(1, ${ROWS}) as i`.execute(t.db);
  await sql`analyze activity_log`.execute(t.db);
  console.log(
    `seeded ${ROWS.toLocaleString('en')} entries (+${(2 * ROWS).toLocaleString('en')} of other organisations) in ${(performance.now() - seeded).toFixed(0)} ms on ${t.database.url ? 'PostgreSQL' : 'PGlite'}`,
  );

  async function walk(label: string, filter: { actor?: string; kind?: string }): Promise<void> {
    const times: number[] = [];
    let cursor: string | null = null;
    let rows = 0;
    do {
      const started = performance.now();
      const page = await activityPage(t.db, org.id, { ...filter, limit: PAGE, cursor: cursor ?? undefined });
      times.push(performance.now() - started);
      rows += page.items.length;
      cursor = page.nextCursor;
    } while (cursor);
    const sorted = [...times].sort((a, b) => a - b);
    console.log(
      `${label}: ${rows.toLocaleString('en')} rows in ${times.length} pages of ${PAGE}; per page median ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, first ${times[0]!.toFixed(1)} ms, last ${times.at(-1)!.toFixed(1)} ms`,
    );
  }

  await walk('whole log', {});
  await walk('kind=user', { kind: 'user' });
  await walk('actor=system', { actor: 'system' });

  const actorTimes: number[] = [];
  let actorCount = 0;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    actorCount = (await activityActors(t.db, org.id)).actors.length;
    actorTimes.push(performance.now() - started);
  }
  console.log(
    `actor filter options: ${actorCount}; first call ${actorTimes[0]!.toFixed(1)} ms, then median ${[...actorTimes.slice(1)].sort((a, b) => a - b)[1]!.toFixed(1)} ms`,
  );

  const exportStarted = performance.now();
  let bytes = 0;
  for await (const chunk of activityCsv(t.db, org.id, {})) bytes += Buffer.byteLength(chunk);
  console.log(
    `CSV export of the whole log: ${(bytes / 1024 / 1024).toFixed(1)} MB in ${(performance.now() - exportStarted).toFixed(0)} ms`,
  );

  const deepest = await sql<{ 'QUERY PLAN': string }>`explain
    select id from activity_log
    where organization_id = ${org.id}
      and (created_at, id) < (now() - interval '1 hour' * ${ROWS / 3 / 3600}, '00000000-0000-4000-8000-000000000000'::uuid)
    order by created_at desc, id desc limit ${PAGE + 1}`.execute(t.db);
  console.log('plan of a deep page:');
  for (const row of deepest.rows) console.log(`  ${row['QUERY PLAN']}`);
} finally {
  await t.close();
}
