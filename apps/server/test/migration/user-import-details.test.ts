import { IMPORT_MAX_ROWS } from '@atrium/contracts/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, signInAs, type TestSession } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';
import { dryRun, finishImport, startImport } from './helpers.ts';

// Issue 30 item 7: the import's counts, names, result file, limits and job, as a client sees them.

let t: TestApp;

let admin: TestSession;
/** What afterImportBatch does, per test. */
let afterBatch: ((importId: string, batch: number) => Promise<void>) | undefined;

beforeAll(async () => {
  t = await createTestApp({
    deps: {
      migration: { importBatchSize: 2, afterImportBatch: async (id, batch) => afterBatch?.(id, batch) },
    },
  });
  const org = await createOrganizationWithAdmin(t.db);

  admin = await signInAs(t.db, org.admin);
  await addDomain(t.db, org.id, 'delta.test', 'verified');
});

afterAll(async () => {
  await t.close();
});

async function importAndWait(csv: string, fileName = 'users.csv') {
  const started = await startImport(t, admin, csv, fileName);
  expect(started.status).toBe(202);
  await finishImport(t, started.body.id);
  return (await as(t, admin).get(`/api/migration/user-imports/${started.body.id}`)).body;
}

async function resultLines(id: string): Promise<string[]> {
  const response = await as(t, admin).get(`/api/migration/user-imports/${id}/result.csv`);
  expect(response.status).toBe(200);
  return response.response.body
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n')
    .slice(1);
}

describe('an import cancelled midway', () => {
  it('counts as errors exactly the rows its result file lists as errors', async () => {
    const csv = [
      'First name,Last name,E-mail',
      'Ann,One,cancel1@delta.test',
      'Bob,Two,cancel2@delta.test',
      'Bad,Three,not-an-address',
      'Cy,Four,cancel4@delta.test',
      'Bad,Five,also-not-an-address',
      'Di,Six,cancel6@delta.test',
      'Bad,Seven,@delta.test',
    ].join('\n');
    afterBatch = async (id, batch) => {
      if (batch === 1)
        expect((await as(t, admin).post(`/api/migration/user-imports/${id}/cancel`)).status).toBe(200);
    };
    try {
      const job = await importAndWait(csv, 'cancelled.csv');
      expect(job).toMatchObject({ status: 'cancelled', rowsDone: 2 });
      const lines = await resultLines(job.id);
      const errorRows = lines.filter((l) => l.includes('"error"'));
      expect(errorRows).toHaveLength(3);
      expect(job.counts.errors).toBe(errorRows.length);
    } finally {
      afterBatch = undefined;
    }
  });
});

describe('an organisation whose admin has no last name (created by `atrium create-organization`)', () => {
  it('re-imports its own users export: nothing to change, no error', async () => {
    const org = await createOrganizationWithAdmin(t.db);
    await t.db.updateTable('users').set({ last_name: '' }).where('id', '=', org.admin.id).execute();
    const session = await signInAs(t.db, org.admin);
    const exported = await as(t, session).get('/api/users/export.csv');
    expect(exported.status).toBe(200);
    const file = exported.response.body as string;
    expect(file.split('\r\n')[1]).toMatch(/^"Ada",""/);

    const checked = await dryRun(t, session, file);
    expect(checked.body).toMatchObject({
      counts: { create: 0, update: 0, unchanged: 1, errors: 0 },
      errors: [],
    });
    const started = await startImport(t, session, file, 'export.csv');
    expect(started.status).toBe(202);
    await finishImport(t, started.body.id);
    const job = await as(t, session).get(`/api/migration/user-imports/${started.body.id}`);
    expect(job.body).toMatchObject({ status: 'done', counts: { unchanged: 1, errors: 0 } });
    const admin = await t.db
      .selectFrom('users')
      .select(['first_name', 'last_name'])
      .where('id', '=', org.admin.id)
      .executeTakeFirstOrThrow();
    expect(admin).toEqual({ first_name: 'Ada', last_name: '' });
  });

  it('an empty name never blanks an existing user’s name; a new user still needs both', async () => {
    await importAndWait('First name,Last name,E-mail\nGrace,Hopper,grace@delta.test\n');
    const csv = 'First name,Last name,E-mail\nGrace,,grace@delta.test\nNew,,new@delta.test\n';
    const checked = await dryRun(t, admin, csv);
    expect(checked.body).toMatchObject({ counts: { create: 0, unchanged: 1, errors: 1 } });
    expect(checked.body.errors).toEqual([
      { row: 3, email: 'new@delta.test', message: 'Enter the last name' },
    ]);
    const job = await importAndWait(csv);
    expect(job).toMatchObject({ status: 'done', counts: { unchanged: 1, errors: 1 } });
    const grace = await t.db
      .selectFrom('users')
      .select(['first_name', 'last_name'])
      .where('email', '=', 'grace@delta.test')
      .executeTakeFirstOrThrow();
    expect(grace).toEqual({ first_name: 'Grace', last_name: 'Hopper' });
  });
});

describe('the result file', () => {
  it('neutralises formulas written with full-width or compatibility signs (＝1+1), as the ASCII ones', async () => {
    const csv = [
      'First name,Last name,E-mail',
      '＝1+1,Plain,fullwidth1@delta.test',
      '＋SUM(A1),Plain,fullwidth2@delta.test',
      '﹦1+1,Plain,fullwidth3@delta.test',
      '=1+1,Plain,ascii@delta.test',
    ].join('\n');
    const job = await importAndWait(csv);
    expect(job.counts).toMatchObject({ create: 4, errors: 0 });
    const lines = await resultLines(job.id);
    expect(lines.map((l) => l.split(',')[2])).toEqual([
      '"\'＝1+1"',
      '"\'＋SUM(A1)"',
      '"\'﹦1+1"',
      '"\'=1+1"',
    ]);
    // The users export writes cells the same way.
    const exported = await as(t, admin).get('/api/users/export.csv');
    expect(exported.response.body).toContain('"\'＝1+1"');
  });
});

describe('seats for the largest import', () => {
  it('an Enterprise plan (no seat limit) takes as many seats as a 150,000-row import needs', async () => {
    const seats = IMPORT_MAX_ROWS + 1;
    const changed = await as(t, admin).put('/api/subscription', { planKey: 'enterprise', seats });
    expect(changed.status).toBe(200);
    expect(changed.body.subscription).toMatchObject({ plan: { key: 'enterprise', seatLimit: null }, seats });
  });
});
