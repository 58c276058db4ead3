// npm run bench -- search
// The header search (GET /api/search) in an organisation of 100,000 users (the users-list
// benchmark's seeding), 1,000 groups, 200 domains and 50 apps, beside a second organisation of
// 10,000 users. Prints the median and 95th percentile of the server's own time per request
// (Fastify's reply.elapsedTime, via app.inject) for several kinds of search text, and the plan of
// each query: every one must read an index, never scan users. Beside each request figure, the
// same search's four queries called directly, so the database's share is visible. PGlite by default;
// TEST_DATABASE_URL=postgres://… runs it in a fresh database on that server (dropped afterwards).
// Measures only; never fails on a figure.
import { randomBytes } from 'node:crypto';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Database } from '../src/db/database.ts';
import { performance } from 'node:perf_hooks';
import { containsPattern, prefixPattern } from '../src/lib/prefix-pattern.ts';
import { searchOrganization } from '../src/modules/search/search.service.ts';
import {
  appsByPrefixQuery,
  domainsByPrefixQuery,
  groupsByPrefixQuery,
  usersByPrefixQuery,
} from '../src/modules/search/search.repository.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createTestDatabase } from '../test/support/test-database.ts';
import { testEnv } from '../test/support/test-app.ts';
import { seedOrganizations, seedUsers } from './users-list-seed.ts';
import { signedInBenchAdmin } from './bench-admin.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const USERS = Number(process.env.BENCH_SEARCH_USERS ?? 100_000);
const WARMUP = 20;

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { median: at(0.5), p95: at(0.95) };
};

/** Groups, domains and apps in bulk (one statement each), so their searches have work to do. */
async function seedOthers(db: Kysely<Database>, orgId: string): Promise<void> {
  await sql`insert into groups (organization_id, name, name_key)
    select ${orgId}::uuid, 'Team ' || lpad(i::text, 4, '0'), 'team ' || lpad(i::text, 4, '0')
    from generate_series(1, 1000) as i`.execute(db);
  await sql`insert into domains (organization_id, name, state, verification_token, dkim_private_key_enc, dkim_public_key)
    select ${orgId}::uuid, 'shop' || i || '.example.com', case when i % 2 = 0 then 'verified' else 'pending' end,
      'token', 'sealed', 'public'
    from generate_series(1, 200) as i`.execute(db);
  const prefix = randomBytes(3).toString('hex');
  await sql`insert into oidc_clients (client_id, organization_id, metadata)
    select ${prefix} || '-' || i, ${orgId}::uuid, '{}'::jsonb from generate_series(1, 50) as i`.execute(db);
  await sql`insert into apps (organization_id, template_key, title, launch_url, client_id)
    select ${orgId}::uuid, 'wiki', 'Wiki ' || i, 'https://wiki' || i || '.example.com', ${prefix} || '-' || i
    from generate_series(1, 50) as i`.execute(db);
  await sql`analyze`.execute(db);
}

async function planOf(db: Kysely<Database>, compiled: CompiledQuery): Promise<string[]> {
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>(
    CompiledQuery.raw(`explain analyze ${compiled.sql}`, [...compiled.parameters]),
  );
  return rows.map((r) => r['QUERY PLAN']);
}

const t = await createTestDatabase();
const times: number[] = [];
const app = await buildApp(loadConfig(testEnv()), { db: t.db });
app.addHook('onResponse', async (request, reply) => {
  if (request.url.startsWith('/api/search')) times.push(reply.elapsedTime);
});
await app.ready();
try {
  const database = t.url ? 'PostgreSQL' : 'PGlite';
  const started = Date.now();
  const [bigOrg, otherOrg] = await seedOrganizations(t.db, `search-${randomBytes(3).toString('hex')}`, 2);
  await seedUsers(t.db, [bigOrg!], USERS);
  await seedUsers(t.db, [otherOrg!], 10_000);
  await seedOthers(t.db, bigOrg!);
  console.log(
    `${database}: seeded ${(USERS + 10_000).toLocaleString('en')} users and the rest in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );

  const session = await signedInBenchAdmin(t.db, bigOrg!, 'Bench');

  let ip = 0;
  const run = async (q: string) => {
    // A different client address per request keeps the per-address rate limit out of the figures.
    ip++;
    const response = await app.inject({
      url: `/api/search?${new URLSearchParams({ q })}`,
      headers: session.headers,
      remoteAddress: `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`,
    });
    if (response.statusCode !== 200) throw new Error(`${q}: ${response.statusCode} ${response.body}`);
    return response.json() as Record<string, unknown[]>;
  };

  const scenarios: Array<[string, string]> = [
    ['one letter "m" (tens of thousands match)', 'm'],
    ['first name "mar"', 'mar'],
    ['last name "smi"', 'smi'],
    ['full name "sofia w"', 'sofia w'],
    ['e-mail "julia.garcia.1"', 'julia.garcia.1'],
    ['group "team 05"', 'team 05'],
    ['domain "shop1"', 'shop1'],
    ['app "wiki 4"', 'wiki 4'],
    ['inside a last name "arcia"', 'arcia'],
    ['every address holds "example.com"', 'example.com'],
    ['nothing matches "zzz"', 'zzz'],
  ];
  console.log(
    `\n${database} — ${RUNS} runs each, ms: GET /api/search (server time per request) and its four queries alone`,
  );
  console.log(
    'search text                                request median / p95   queries median / p95   found (users/groups/domains/apps)',
  );
  for (const [label, q] of scenarios) {
    let found = '';
    for (let i = 0; i < WARMUP; i++) {
      const body = await run(q);
      found = ['users', 'groups', 'domains', 'apps'].map((k) => body[k]!.length).join('/');
    }
    times.length = 0;
    for (let i = 0; i < RUNS; i++) await run(q);
    const request = stats(times);
    // The same search without HTTP, session look-up and validation: what the database costs.
    const queryTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await searchOrganization(t.db, bigOrg!, q, 5);
      queryTimes.push(performance.now() - started);
    }
    const queries = stats(queryTimes);
    const pair = (x: { median: number; p95: number }) =>
      `${x.median.toFixed(2).padStart(7)} / ${x.p95.toFixed(2).padStart(6)}`;
    console.log(`${label.padEnd(42)} ${pair(request)}       ${pair(queries)}       ${found}`);
  }

  console.log(`\n${database} — query plans for "mar" (EXPLAIN ANALYZE: scans and execution time)`);
  const pattern = prefixPattern('mar');
  const plans: Array<[string, string[]]> = [];
  for (const [kind, query] of [
    ['users', usersByPrefixQuery],
    ['groups', groupsByPrefixQuery],
    ['domains', domainsByPrefixQuery],
    ['apps', appsByPrefixQuery],
  ] as const) {
    plans.push([kind, await planOf(t.db, query(bigOrg!, pattern, 5).compile(t.db))]);
  }
  // Any part of a name or address, for a common, an everywhere and a missing text: the planner
  // reads the table until it has 5 when most rows match, and the trigram index when few do.
  for (const text of ['arcia', 'example.com', 'qqqzz']) {
    const compiled = usersByPrefixQuery(bigOrg!, prefixPattern(text), 5, containsPattern(text)).compile(t.db);
    plans.push([`users "${text}"`, await planOf(t.db, compiled)]);
  }
  let sequential = false;
  for (const [kind, lines] of plans) {
    for (const line of lines.filter((l) => /Scan|Execution Time/.test(l)))
      console.log(`${kind.padEnd(8)} ${line.trim()}`);
    // A prefix must always read an index. "Holds the text" may read the table when most rows
    // match, stopping at the fifth (the planner's choice, shown above); a rare text reads the index.
    if (!kind.includes('"') && lines.some((l) => /Seq Scan on users/.test(l))) sequential = true;
  }
  console.log(sequential ? '\nSEQUENTIAL SCAN ON USERS' : '\nno sequential scan on users');
} finally {
  await app.close();
  await t.drop();
}
