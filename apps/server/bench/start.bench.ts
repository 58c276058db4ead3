// How long the server takes to start, where the time goes, and the gap an update leaves on each
// database (issue 41): the time to load the server's modules, then from spawning main.ts to the
// first 200 from /api/ready, on the embedded database (first start: it creates and migrates the
// database; warm: an existing one) and on PostgreSQL (BENCH_DATABASE_URL, a fresh database
// dropped afterwards). Median of BENCH_START_RUNS runs (default 5). Measures only.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { freePort } from '../test/support/free-port.ts';

const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const main = path.resolve(import.meta.dirname, '../src/main.ts');
const app = path.resolve(import.meta.dirname, '../src/app.ts');

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Loading the server's modules only (what every start pays before it does anything). */
function moduleLoad(): number {
  const bare = performance.now();
  spawnSync(process.execPath, ['-e', '']);
  const nothing = performance.now() - bare;
  const started = performance.now();
  const run = spawnSync(process.execPath, [
    '--input-type=module',
    '-e',
    `await import(${JSON.stringify(app)})`,
  ]);
  if (run.status !== 0) throw new Error(run.stderr.toString());
  return performance.now() - started - nothing;
}

/**
 * Spawns the server with `env` and resolves with the ms until /api/ready answers 200. `standby`:
 * as the supervisor starts the next server on the embedded database (lib/supervised.ts), timed
 * from its go, once it has loaded: the gap an update leaves there.
 */
async function startToReady(
  env: Record<string, string>,
  options: { standby?: boolean } = {},
): Promise<number> {
  const port = await freePort();
  let started = performance.now();
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH ?? '',
      PUBLIC_URL: 'http://127.0.0.1',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
      ...(options.standby ? { ATRIUM_SUPERVISED: '1', ATRIUM_STANDBY: '1' } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  if (options.standby) {
    await new Promise<void>((resolve) =>
      child.on('message', (m: { type?: string }) => m.type === 'standing-by' && resolve()),
    );
    started = performance.now();
    child.send({ type: 'go' });
  }
  try {
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/api/ready`).catch(() => undefined);
      if (ready?.status === 200) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const load: number[] = [];
for (let i = 0; i < RUNS; i++) load.push(moduleLoad());
console.log(`loading the server's modules: ${seconds(median(load))}`);

const secret = randomBytes(32).toString('base64url');
const cold: number[] = [];
const warm: number[] = [];
const standby: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const dir = mkdtempSync(path.join(tmpdir(), 'atrium-start-'));
  try {
    cold.push(await startToReady({ DATA_DIR: dir, ATRIUM_SECRET: secret }));
    warm.push(await startToReady({ DATA_DIR: dir, ATRIUM_SECRET: secret }));
    standby.push(await startToReady({ DATA_DIR: dir, ATRIUM_SECRET: secret }, { standby: true }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`embedded database, first start (creates and migrates it): ${seconds(median(cold))}`);
console.log(`embedded database, warm start: ${seconds(median(warm))}`);
console.log(
  `embedded database, a loaded standby's go to ready (the gap of an update there): ${seconds(median(standby))}`,
);

const name = `atrium_start_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`create database ${name}`);
try {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const postgres: number[] = [];
  for (let i = 0; i < RUNS; i++)
    postgres.push(await startToReady({ DATABASE_URL: url.href, ATRIUM_SECRET: secret }));
  console.log(
    `PostgreSQL, warm start: ${seconds(median(postgres))} (an update there has no gap: the new server starts beside the old)`,
  );
} finally {
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
