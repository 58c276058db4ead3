import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, signInAs, type TestSession } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';
import { finishImport, startImport } from './helpers.ts';

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
