// npm run bench -- users-load
// The signed-in users list under load (issue 18, item 4): 100,000 users in one organisation, the
// server listening on loopback, and 50 keep-alive connections asking for the first page for
// BENCH_LOAD_SECONDS (10) from a separate process (users-load-client.ts). Prints requests per
// second and latency percentiles, on PGlite (on disk, as `npm start` runs it) and on the
// PostgreSQL server (BENCH_DATABASE_URL, in a fresh database dropped afterwards).
// BENCH_LOAD_PROFILE=DIR writes a CPU profile of the server during each measured run.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { seedOrganizations, seedUsers } from './users-list-seed.ts';
import { signedInBenchAdmin } from './bench-admin.ts';
import { openBenchDatabase } from './bench-database.ts';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 50);
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

function load(url: string, cookie: string): Promise<LoadResult> {
  const client = path.join(import.meta.dirname, 'users-load-client.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [client, url, cookie, String(CONNECTIONS), String(SECONDS)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load client exited ${code}`)),
    );
  });
}

async function bench(kind: 'PGlite' | 'PostgreSQL') {
  const { db, drop } = await openBenchDatabase(kind, { tag: 'load', serverUrl });
  try {
    await migrateToLatest(db);
    const [orgId] = await seedOrganizations(db, 'load', 1);
    await seedUsers(db, [orgId!], 100_000);
    const cookie = (await signedInBenchAdmin(db, orgId!, 'Load')).cookie; // the cookie a signed-in browser sends
    const config = loadConfig({
      ATRIUM_SECRET: 'bench-secret-that-is-long-enough-0123456789',
      LOG_LEVEL: 'silent',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'atrium-load-data-')),
      PUBLIC_URL: 'http://127.0.0.1:0',
      TRUST_PROXY: '1',
    });
    const app = await buildApp(config, { db });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const url = `http://127.0.0.1:${port}/api/users?sort=name`;
    try {
      const check = await fetch(url, { headers: { cookie } });
      if (check.status !== 200) throw new Error(`users list: ${check.status} ${await check.text()}`);
      await load(url, cookie); // warm-up
      const profile = await startProfile();
      const r = await load(url, cookie);
      await profile?.stop(`${kind}`);
      console.log(
        `${kind.padEnd(10)} users list, ${CONNECTIONS} connections, ${SECONDS} s: ${r.requests.average.toFixed(0)} requests/s, ` +
          `latency p50 ${r.latency.p50} ms, p90 ${r.latency.p90} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms` +
          (r.non2xx || r.errors || r.timeouts
            ? ` (non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts})`
            : ''),
      );
    } finally {
      await app.close();
    }
  } finally {
    await drop();
  }
}

/** BENCH_LOAD_PROFILE=DIR: a CPU profile of the server during the measured run, one per database. */
async function startProfile() {
  const dir = process.env.BENCH_LOAD_PROFILE;
  if (!dir) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(name: string) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(path.join(dir, `users-load-${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}

const only = process.env.BENCH_TARGET;
if (!only || only === 'pglite') await bench('PGlite');
if (!only || only === 'postgres') await bench('PostgreSQL');
