import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOrganizationWithAdmin,
  signInAs,
  type TestOrganization,
  type TestSession,
} from '../support/fixtures.ts';
import { createTestApp } from '../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { addDomain, as } from '../users/helpers.ts';
import { finishImport, runJobsUntil, startImport } from './helpers.ts';

let database: TestDatabase;
let org: TestOrganization;
let admin: TestSession;

const ROWS = 9;
const csv = [
  'First name,Last name,E-mail,Groups',
  ...Array.from({ length: ROWS }, (_, i) => `Person,Number${i + 1},person${i + 1}@acme.test,Team ${i % 2}`),
].join('\n');

beforeAll(async () => {
  database = await createTestDatabase();
  org = await createOrganizationWithAdmin(database.db);
  admin = await signInAs(database.db, org.admin);
  await addDomain(database.db, org.id, 'acme.test', 'verified');
});

afterAll(async () => {
  await database.drop();
});

async function importedEmails() {
  const rows = await database.db
    .selectFrom('users')
    .select('email')
    .where('organization_id', '=', org.id)
    .where('email', 'like', 'person%')
    .execute();
  return rows.map((r) => r.email).sort();
}

describe('an import across a restart', () => {
  it('continues from the last committed batch: every row exactly once', async () => {
    // The first server stops for good right after committing its first batch of 2 rows.
    const first = await createTestApp({
      database,
      deps: {
        migration: {
          importBatchSize: 2,
          afterImportBatch: async () => {
            throw new Error('the server stopped');
          },
        },
      },
    });
    const started = await startImport(first, admin, csv);
    expect(started.status).toBe(202);
    // Until the first server's attempt has ended (its job is queued again for a retry).
    await runJobsUntil(first, async () => {
      const row = await database.db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where('kind', '=', 'migration.user-import')
        .executeTakeFirstOrThrow();
      return row.status === 'queued' && row.attempts === 1;
    });
    const midway = await as(first, admin).get(`/api/migration/user-imports/${started.body.id}`);
    expect(midway.body).toMatchObject({ status: 'running', rowsDone: 2, counts: { create: 2 } });
    await first.close();
    expect(await importedEmails()).toHaveLength(2);

    // Time passes: the job is due again; a new server on the same database takes it over.
    await database.db
      .updateTable('jobs')
      .set({ run_at: new Date(Date.now() - 1000) })
      .where('status', '=', 'queued')
      .execute();
    const second = await createTestApp({ database, deps: { migration: { importBatchSize: 2 } } });
    await finishImport(second, started.body.id);
    const done = await as(second, admin).get(`/api/migration/user-imports/${started.body.id}`);
    expect(done.body).toMatchObject({
      status: 'done',
      rowsDone: ROWS,
      counts: { create: ROWS, update: 0, unchanged: 0, errors: 0 },
    });
    expect(await importedEmails()).toEqual(
      Array.from({ length: ROWS }, (_, i) => `person${i + 1}@acme.test`).sort(),
    );
    const memberships = await database.db
      .selectFrom('group_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', org.id)
      .executeTakeFirstOrThrow();
    // The admin in Dashboard, and each imported person in one team.
    expect(Number(memberships.n)).toBe(ROWS + 1);
    const result = await as(second, admin).get(`/api/migration/user-imports/${started.body.id}/result.csv`);
    expect(result.response.body.match(/"created"/g)).toHaveLength(ROWS);
    await second.close();
  });

  it('can be cancelled between batches: what was written stays, the rest is not imported', async () => {
    let cancelled: { status: number; body: { status: string } } | undefined;
    const cancelCsv = csv.replaceAll('person', 'cancel');
    const app = await createTestApp({
      database,
      deps: {
        migration: {
          importBatchSize: 2,
          afterImportBatch: async (importId, batch) => {
            if (batch === 1)
              cancelled = await as(app, admin).post(`/api/migration/user-imports/${importId}/cancel`);
          },
        },
      },
    });
    const started = await startImport(app, admin, cancelCsv, 'cancel.csv');
    await finishImport(app, started.body.id);
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    const job = await as(app, admin).get(`/api/migration/user-imports/${started.body.id}`);
    expect(job.body).toMatchObject({ status: 'cancelled', rowsDone: 2, counts: { create: 2 } });
    const created = await database.db
      .selectFrom('users')
      .select('email')
      .where('email', 'like', 'cancel%')
      .execute();
    expect(created).toHaveLength(2);
    const result = await as(app, admin).get(`/api/migration/user-imports/${started.body.id}/result.csv`);
    expect(result.response.body.match(/"not imported"/g)).toHaveLength(ROWS - 2);
    const activity = await database.db
      .selectFrom('activity_log')
      .select('action')
      .where('target_label', '=', 'cancel.csv')
      .orderBy('created_at')
      .execute();
    expect(activity.map((a) => a.action)).toEqual([
      'migration.user_import_started',
      'migration.user_import_cancelled',
    ]);
    await app.close();
  });
});
