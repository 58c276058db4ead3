// npm run bench -- users-list
// Seeds 100,000 users in one organisation, measures the users list endpoint, then adds
// 1,000,000 users across 100 more organisations and measures again; on PGlite and on the
// PostgreSQL server (BENCH_DATABASE_URL, in a fresh database dropped afterwards). Each figure
// is the server's own time for the request (Fastify's reply.elapsedTime, via app.inject),
// beside the same page read with OFFSET pagination.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CompiledQuery, type Kysely } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { encodeCursor } from '../src/modules/users/user-cursor.ts';
import { searchStrategy, usersPageQuery } from '../src/modules/users/users-list.repository.ts';
import { offsetRoutes } from './users-list-offset.ts';
import { seedOrganizations, seedUsers } from './users-list-seed.ts';
import { signedInBenchAdmin } from './bench-admin.ts';
import { openBenchDatabase } from './bench-database.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const WARMUP = 10;
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Target {
  name: string;
  db: Kysely<Database>;
  drop(): Promise<void>;
}

const pgliteTarget = async (): Promise<Target> => ({
  name: 'PGlite',
  ...(await openBenchDatabase('PGlite', { tag: 'bench', serverUrl })),
});

const postgresTarget = async (): Promise<Target> => ({
  name: 'PostgreSQL',
  ...(await openBenchDatabase('PostgreSQL', { tag: 'bench', serverUrl })),
});

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { median: at(0.5), p95: at(0.95) };
};

/** Measures every scenario; returns the slowest keyset p95, for the 50 ms goal of issue 5. */
async function measure(target: Target, label: string, orgId: string): Promise<number> {
  const config = loadConfig({
    ATRIUM_SECRET: 'bench-secret-that-is-long-enough-0123456789',
    LOG_LEVEL: 'silent',
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'atrium-bench-data-')),
  });
  const app = await buildApp(config, { db: target.db });
  const times: number[] = [];
  app.addHook('onResponse', async (_request, reply) => {
    times.push(reply.elapsedTime);
  });
  await app.register(offsetRoutes(target.db));
  await app.ready();

  const session = await signedInBenchAdmin(target.db, orgId, 'Bench');
  const { count } = await target.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organization_id', '=', orgId)
    .executeTakeFirstOrThrow();
  const deep = Math.max(0, Math.floor(count / 2) - 1);
  const deepRow = await target.db
    .selectFrom('users')
    .select(['id', 'name_key'])
    .where('organization_id', '=', orgId)
    .orderBy('name_key')
    .orderBy('id')
    .offset(deep)
    .limit(1)
    .executeTakeFirstOrThrow();
  const deepCursor = encodeCursor({ sort: 'name', dir: 'asc', value: deepRow.name_key, id: deepRow.id });

  const scenarios: Array<[string, string, string]> = [
    ['first page (name)', '/api/users?sort=name', '/api/bench/users-offset?sort=name&offset=0'],
    [
      `deep page (row ${deep + 1})`,
      `/api/users?sort=name&cursor=${deepCursor}`,
      `/api/bench/users-offset?sort=name&offset=${deep + 1}`,
    ],
    ['prefix search "mar" (many)', '/api/users?q=mar', '/api/bench/users-offset?sort=name&q=mar&offset=0'],
    [
      'prefix search "sof" (few, late)',
      '/api/users?q=sof',
      '/api/bench/users-offset?sort=name&q=sof&offset=0',
    ],
    [
      'suspended, last sign-in desc',
      '/api/users?status=suspended&sort=lastSignIn&dir=desc',
      '/api/bench/users-offset?sort=lastSignIn&dir=desc&status=suspended&offset=0',
    ],
  ];
  let ip = 0;
  const run = async (url: string) => {
    // A different client address per request keeps the per-address rate limit out of the figures.
    ip++;
    const response = await app.inject({
      url,
      headers: session.headers,
      remoteAddress: `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`,
    });
    if (response.statusCode !== 200)
      throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
  };
  console.log(`\n${target.name} — ${label} (${count.toLocaleString('en')} users in the organisation)`);
  console.log('scenario                          keyset median / p95      OFFSET median / p95   (ms)');
  let slowestKeysetP95 = 0;
  for (const [name, keysetUrl, offsetUrl] of scenarios) {
    const result: string[] = [];
    for (const url of [keysetUrl, offsetUrl]) {
      for (let i = 0; i < WARMUP; i++) await run(url);
      times.length = 0;
      for (let i = 0; i < RUNS; i++) await run(url);
      const s = stats(times);
      if (url === keysetUrl) slowestKeysetP95 = Math.max(slowestKeysetP95, s.p95);
      result.push(`${s.median.toFixed(2).padStart(8)} / ${s.p95.toFixed(2).padStart(8)}`);
    }
    console.log(`${name.padEnd(32)} ${result[0]}      ${result[1]}`);
  }
  await app.close();
  return slowestKeysetP95;
}

/** The plan of every sort × direction × status filter, and of a search: each must be an index scan. */
async function explainAll(target: Target, orgId: string) {
  console.log(`\n${target.name} — query plans (first node that reads users)`);
  for (const sort of ['name', 'email', 'created', 'lastSignIn'] as const) {
    for (const dir of ['asc', 'desc'] as const) {
      for (const status of [undefined, 'suspended'] as const) {
        for (const q of [undefined, 'mar', 'sof'] as const) {
          const filter = { sort, dir, status, q };
          const strategy = await searchStrategy(target.db, orgId, filter, undefined);
          const compiled = usersPageQuery(target.db, orgId, filter, undefined, 51, strategy).compile();
          const plan = await target.db.executeQuery<{ 'QUERY PLAN': string }>(
            CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]),
          );
          const lines = plan.rows.map((r) => r['QUERY PLAN']);
          const scan = lines.find((l) => /Scan/.test(l))?.trim() ?? lines[0]!;
          const flag = lines.some((l) => /Seq Scan on users/.test(l)) ? '  <-- SEQ SCAN' : '';
          const label = `${sort} ${dir}${status ? ' status' : ''}${q ? ` q=${q} (${strategy})` : ''}`;
          console.log(`${label.padEnd(36)} ${scan.slice(0, 100)}${flag}`);
        }
      }
    }
  }
}

async function benchTarget(make: () => Promise<Target>) {
  const target = await make();
  try {
    await migrateToLatest(target.db);
    let started = Date.now();
    const [bigOrg] = await seedOrganizations(target.db, 'big', 1);
    await seedUsers(target.db, [bigOrg!], 100_000);
    console.log(`\n${target.name}: seeded 100,000 users in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const slowest = [await measure(target, '100,000 users in the deployment', bigOrg!)];

    started = Date.now();
    const orgs = await seedOrganizations(target.db, 'many', 100);
    await seedUsers(target.db, orgs, 10_000);
    console.log(
      `\n${target.name}: seeded 1,000,000 more users across 100 organisations in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    slowest.push(await measure(target, '1,100,000 users in the deployment, the big organisation', bigOrg!));
    slowest.push(
      await measure(target, '1,100,000 users in the deployment, one of the 100 organisations', orgs[0]!),
    );
    const worst = Math.max(...slowest);
    console.log(
      `\n${target.name}: slowest keyset p95 ${worst.toFixed(2)} ms (goal on PostgreSQL: under 50 ms; ${worst < 50 ? 'met' : 'NOT met'})`,
    );
    if (target.name === 'PostgreSQL') await explainAll(target, bigOrg!);
  } finally {
    await target.drop();
  }
}

const only = process.env.BENCH_TARGET;
if (!only || only === 'pglite') await benchTarget(pgliteTarget);
if (!only || only === 'postgres') await benchTarget(postgresTarget);
