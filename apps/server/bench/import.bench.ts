// The CSV user import (issue 16): rows per second of a dry run and of an import, and the peak
// resident memory, for 10,000 and 150,000 rows (BENCH_IMPORT_ROWS=10000,150000 by default), each
// size in a fresh process. Through the real routes with the file
// streamed in, and the job queue doing the writing. PGlite by default; TEST_DATABASE_URL=postgres://…
// for PostgreSQL. Rows carry two groups each and no password (hashing one costs ~50 ms by design,
// which would measure argon2, not the import). Also how long `/api/ready` takes while the upload
// is read and staged (the embedded database has one connection for every request: a long
// transaction or a long synchronous parse makes every other request wait, issue 30 item 7).
// Measures only; never fails on a figure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { createOrganizationWithAdmin, signInAs } from '../test/support/fixtures.ts';
import { connectDatabase } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createTestApp } from '../test/support/test-app.ts';
import type { TestDatabase } from '../test/support/test-database.ts';
import { addDomain } from '../test/users/helpers.ts';

const child = process.env.BENCH_IMPORT_CHILD;

if (!child) {
  const sizes = (process.env.BENCH_IMPORT_ROWS ?? '10000,150000').split(',').map(Number);
  for (const rows of sizes) {
    const result = spawnSync(process.execPath, [import.meta.filename], {
      stdio: 'inherit',
      env: { ...process.env, BENCH_IMPORT_CHILD: String(rows) },
    });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
  process.exit(0);
}

const ROWS = Number(child);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/**
 * The highest RSS seen while `work` runs, sampled every 20 ms. Not the process's own peak: starting
 * a PGlite and migrating it peaks at about 1.2 GB before any import begins.
 */
async function peakDuring<T>(work: () => Promise<T>): Promise<{ result: T; peak: number; before: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, peak, before };
  } finally {
    clearInterval(timer);
  }
}

/**
 * `/api/ready` asked every 20 ms while `work` runs: the slowest answer and the median, in ms.
 * Each probe waits for the previous one, so one stall counts once at its full length.
 */
async function readyLatencyDuring<T>(
  app: Awaited<ReturnType<typeof createTestApp>>['app'],
  work: () => Promise<T>,
): Promise<{ result: T; max: number; median: number; probes: number }> {
  const times: number[] = [];
  let running = true;
  const probe = (async () => {
    while (running) {
      const at = performance.now();
      await app.inject('/api/ready');
      times.push(performance.now() - at);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    const result = await work();
    return {
      result,
      max: Math.max(0, ...times),
      median: times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0,
      probes: times.length,
    };
  } finally {
    running = false;
    await probe;
  }
}

/** The file, generated as it is read: the bench holds no copy of it. */
function file(): Readable {
  async function* lines() {
    yield 'First name,Last name,E-mail,Groups\r\n';
    const CHUNK = 1000;
    for (let i = 0; i < ROWS; i += CHUNK) {
      let chunk = '';
      for (let j = i; j < Math.min(ROWS, i + CHUNK); j++) {
        chunk += `Person,"Number ${j}",person${j}@bench.test,"Team ${j % 20}; Site ${j % 7}"\r\n`;
      }
      yield chunk;
    }
  }
  return Readable.from(lines());
}

/**
 * PGlite on disk in a temporary DATA_DIR, as the server runs it: an in-memory PGlite would hold the
 * whole database (150,000 users, their rows, the indexes) in the process and count it as the import's.
 */
async function benchDatabase(): Promise<TestDatabase | undefined> {
  if (process.env.TEST_DATABASE_URL) return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-import-bench-'));
  const db = await connectDatabase({ pgliteDir: path.join(dir, 'pgdata') });
  await migrateToLatest(db);
  return {
    db,
    url: undefined,
    async drop() {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const database = await benchDatabase();
const t = await createTestApp(database ? { database } : {});
try {
  const org = await createOrganizationWithAdmin(t.db);
  await addDomain(t.db, org.id, 'bench.test', 'verified');
  const session = await signInAs(t.db, org.admin);
  const db = t.database.url ? 'PostgreSQL' : 'PGlite (on disk)';
  /** Stops the import the latency probe started, so the timed import below runs alone. */
  const cancelImport = async (id: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/migration/user-imports/${id}/cancel`,
      headers: session.headers,
    });
    if (res.statusCode !== 200) throw new Error(`cancel: ${res.statusCode} ${res.body}`);
  };
  const send = (url: string) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { ...session.headers, 'content-type': 'text/csv' },
      payload: file(),
    });

  // BENCH_IMPORT_READY_ONLY=1: only the upload and /api/ready beside it.
  const readyOnly = process.env.BENCH_IMPORT_READY_ONLY === '1';
  let started = performance.now();
  let seconds = 0;
  if (!readyOnly) {
    const dry = await peakDuring(() => send('/api/migration/user-imports/dry-run'));
    if (dry.result.statusCode !== 200)
      throw new Error(`dry run: ${dry.result.statusCode} ${dry.result.body}`);
    seconds = (performance.now() - started) / 1000;
    console.log(
      `${db}, ${ROWS.toLocaleString('en')} rows — dry run: ${seconds.toFixed(1)} s, ${Math.round(ROWS / seconds).toLocaleString('en')} rows/s, RSS ${mb(dry.before)} before, peak ${mb(dry.peak)}`,
    );
  }

  started = performance.now();
  const upload = await readyLatencyDuring(t.app, () =>
    send('/api/migration/user-imports?fileName=ready.csv'),
  );
  if (upload.result.statusCode !== 202)
    throw new Error(`upload: ${upload.result.statusCode} ${upload.result.body}`);
  seconds = (performance.now() - started) / 1000;
  console.log(
    `${db}, ${ROWS.toLocaleString('en')} rows — upload (until 202): ${seconds.toFixed(1)} s; /api/ready meanwhile: slowest ${upload.max.toFixed(0)} ms, median ${upload.median.toFixed(0)} ms (${upload.probes} probes)`,
  );
  await cancelImport(upload.result.json().id as string);
  if (!readyOnly) {
    started = performance.now();
    // Upload, staging and the job's batches (which start as soon as the upload commits).
    const run = await peakDuring(async () => {
      const start = await send('/api/migration/user-imports?fileName=bench.csv');
      if (start.statusCode !== 202) throw new Error(`import: ${start.statusCode} ${start.body}`);
      for (;;) {
        await t.app.jobs.drain();
        const row = await t.db
          .selectFrom('user_imports')
          .select('status')
          .where('file_name', '=', 'bench.csv')
          .executeTakeFirstOrThrow();
        if (row.status !== 'queued' && row.status !== 'running') return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    seconds = (performance.now() - started) / 1000;
    const job = await t.db
      .selectFrom('user_imports')
      .select(['status', 'created_count', 'error_count'])
      .where('file_name', '=', 'bench.csv')
      .executeTakeFirstOrThrow();
    console.log(
      `${db}, ${ROWS.toLocaleString('en')} rows — import: ${seconds.toFixed(1)} s, ${Math.round(ROWS / seconds).toLocaleString('en')} rows/s, RSS ${mb(run.before)} before, peak ${mb(run.peak)}; ${job.status}, ${job.created_count.toLocaleString('en')} created, ${job.error_count} errors`,
    );
  }
} finally {
  await t.close();
  await database?.drop();
}
