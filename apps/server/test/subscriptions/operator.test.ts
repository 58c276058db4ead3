import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

// Issue 15: the operator's side: the plan catalog at start-up and `npm run atrium -- set-plan`.
const main = path.resolve(import.meta.dirname, '../../src/main.ts');
const cli = path.resolve(import.meta.dirname, '../../src/cli.ts');
const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-plans-cli-'));

// The CLI runs against this test's own PostgreSQL database when TEST_DATABASE_URL is set,
// otherwise against an embedded database in DATA_DIR.
let database: TestDatabase | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) database = await createTestDatabase();
  env = {
    PATH: process.env.PATH ?? '',
    ATRIUM_SECRET: 'x'.repeat(40),
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    ...(database?.url ? { DATABASE_URL: database.url } : {}),
  };
});

afterAll(async () => {
  await database?.drop();
});

function atrium(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

/** The database the CLI wrote, opened once it has exited. */
async function withDatabase<T>(read: (db: Awaited<ReturnType<typeof connectDatabase>>) => Promise<T>) {
  if (database) return read(database.db);
  const db = await connectDatabase({ pgliteDir: path.join(dataDir, 'pgdata') });
  try {
    return await read(db);
  } finally {
    await db.destroy();
  }
}

describe('set-plan', () => {
  it('sets plan, seats and status', () => {
    const created = atrium(
      'create-organization',
      ...['--name', 'Acme Ltd', '--site', 'acme', '--email', 'ada@acme.test'],
      ...['--password', 'a long passphrase here'],
    );
    expect(created.status).toBe(0);

    const set = atrium(
      'set-plan',
      '--site',
      'acme',
      '--plan',
      'enterprise',
      '--seats',
      '50',
      '--status',
      'active',
    );
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);
    expect(set.stdout).toMatch(
      /^Set acme on Enterprise \(enterprise\), 50 seats \(1 used\), active, renews \d{4}-\d{2}-\d{2}$/,
    );

    const pastDue = atrium('set-plan', '--site', 'acme', '--plan', 'enterprise', '--status', 'past_due');
    expect(pastDue.stdout).toMatch(/^Set acme on Enterprise \(enterprise\), 50 seats \(1 used\), past_due/);
  }, 120_000);

  it('names the problem with a bad site, plan, seats or status', () => {
    expect(atrium('set-plan', '--site', 'nowhere', '--plan', 'free').stderr).toMatch(
      /^--site: no organisation has the site name "nowhere"/,
    );
    expect(atrium('set-plan', '--site', 'acme', '--plan', 'gold').stderr).toMatch(
      /^--plan: there is no plan "gold" \(plans: free, business, enterprise\)/,
    );
    expect(atrium('set-plan', '--site', 'acme', '--plan', 'free', '--seats', '6').stderr).toMatch(
      /^--seats: the Free plan allows at most 5 seats/,
    );
    const badStatus = atrium('set-plan', '--site', 'acme', '--plan', 'free', '--status', 'paused');
    expect(badStatus.status).toBe(1);
    expect(badStatus.stderr).toMatch(/^--status: one of trial, active, past_due, cancelled/);
  }, 120_000);

  // Last: on the embedded database, this test process holds DATA_DIR once it opens it.
  it('records each change in the history as the operator’s', async () => {
    const history = await withDatabase((db) =>
      db
        .selectFrom('subscription_history')
        .innerJoin('organizations', 'organizations.id', 'subscription_history.organization_id')
        .select(['source', 'actor_label', 'from_plan_key', 'plan_key', 'from_seats', 'seats', 'status'])
        .where('organizations.site_name', '=', 'acme')
        .orderBy('subscription_history.created_at')
        .execute(),
    );
    expect(history).toEqual([
      expect.objectContaining({ source: 'system', from_plan_key: null, plan_key: 'business', seats: 10 }),
      {
        source: 'operator',
        actor_label: 'Operator',
        from_plan_key: 'business',
        plan_key: 'enterprise',
        from_seats: 10,
        seats: 50,
        status: 'active',
      },
      expect.objectContaining({ source: 'operator', plan_key: 'enterprise', status: 'past_due' }),
    ]);
  });
});

describe('PLAN_CATALOG at start-up', () => {
  it('stops the server with one line naming the file and the field', () => {
    const file = path.join(dataDir, 'plans.yaml');
    writeFileSync(file, 'plans:\n  - key: team\n    title: Team\n    maxDomains: 1\n    apps: all\n');
    const r = spawnSync(process.execPath, [main], {
      env: { ...env, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'atrium-plans-start-')), PLAN_CATALOG: file },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      `Invalid setting PLAN_CATALOG: ${file}: field plans[0].mailboxQuotaMb: expected a number of MiB`,
    );
  }, 60_000);
});
