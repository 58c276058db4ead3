import { Readable } from 'node:stream';
import { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS } from '@atrium/contracts/migration';
import { sql } from 'kysely';
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
  // Seats for the large files below.
  const org = await createOrganizationWithAdmin(t.db, {
    subscription: { planKey: 'enterprise', seats: 200_000, status: 'active' },
  });
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

describe('the upload', () => {
  /** A body that sends `first`, then waits for `release()` (or 10 s, so an old reader cannot hang the test) before `rest`. */
  function heldBody(first: string, rest: string) {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const fallback = setTimeout(release, 10_000);
    const state = { ended: false };
    const stream = Readable.from(
      (async function* () {
        yield first;
        await held;
        yield rest;
        state.ended = true;
      })(),
    );
    return {
      stream,
      state,
      release: () => {
        clearTimeout(fallback);
        release();
      },
    };
  }

  const send = (url: string, payload: Readable) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { ...admin.headers, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' },
      payload,
    });

  it('is read as it arrives: a header it does not know is refused before the rest is sent', async () => {
    const body = heldBody('Name,Mail\nAda,ada@delta.test\n', 'Bob,bob@delta.test\n');
    const response = await send('/api/migration/user-imports/dry-run', body.stream);
    const endedBeforeAnswer = body.state.ended;
    body.release();
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/not a header this import knows/);
    expect(endedBeforeAnswer).toBe(false);
  });

  it('stages its rows as they arrive, batch by batch, while other requests are answered; the import is listed once the file is whole', async () => {
    const rows = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => `Staged,Person,staged${from + i}@delta.test\n`).join(
        '',
      );
    const body = heldBody(`First name,Last name,E-mail\n${rows(1, 2500)}`, rows(2501, 3000));
    const answer = send('/api/migration/user-imports?fileName=staged.csv', body.stream);
    const staged = async () => {
      const row = await t.db
        .selectFrom('user_import_rows as r')
        .innerJoin('user_imports as i', 'i.id', 'r.import_id')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('i.file_name', '=', 'staged.csv')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    try {
      // The first full batches are in the database while the rest of the file has not come.
      const deadline = Date.now() + 10_000;
      while ((await staged()) < 2000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await staged()).toBeGreaterThanOrEqual(2000);
      expect(body.state.ended).toBe(false);
      expect((await t.app.inject('/api/ready')).statusCode).toBe(200);
      const listed = await as(t, admin).get('/api/migration/jobs');
      expect(listed.body.jobs.map((j: { fileName: string }) => j.fileName)).not.toContain('staged.csv');
    } finally {
      body.release();
    }
    const response = await answer;
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({ fileName: 'staged.csv', totalRows: 3000, status: 'queued' });
    const listed = await as(t, admin).get('/api/migration/jobs');
    expect(listed.body.jobs.map((j: { fileName: string }) => j.fileName)).toContain('staged.csv');
    // Not run here (this app writes 2 rows a batch).
    expect((await as(t, admin).post(`/api/migration/user-imports/${response.json().id}/cancel`)).status).toBe(
      200,
    );
  });

  it('leaves nothing behind when the file turns out bad after rows were staged', async () => {
    const good = Array.from({ length: 1500 }, (_, i) => `Bad,File,badfile${i}@delta.test\n`).join('');
    const response = await send(
      '/api/migration/user-imports?fileName=bad-late.csv',
      Readable.from([`First name,Last name,E-mail\n${good}`, 'Ann,O"Brien,ann@delta.test\n']),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/^The file is not valid CSV: row 1502: /);
    const left = await t.db
      .selectFrom('user_imports')
      .select('id')
      .where('file_name', '=', 'bad-late.csv')
      .execute();
    expect(left).toEqual([]);
  });

  it('takes a Microsoft 365 export over 20 MB (100,000 users make 38.6 MB); over 64 MB the answer names both limits', async () => {
    const header =
      'Block credential,City,Country/Region,Department,Display name,First name,Last name,Proxy addresses,User principal name\n';
    const proxies = Array.from({ length: 300 }, (_, i) => `smtp:alias${i}@old.example.com`).join('+');
    const row = (i: number) =>
      `False,Paris,France,Sales,Big Export${i},Big,Export${i},${proxies},big${i}@delta.test\n`;
    const rowBytes = Buffer.byteLength(row(1000));
    const count = Math.ceil((21 * 1024 * 1024) / rowBytes);
    const file = header + Array.from({ length: count }, (_, i) => row(1000 + i)).join('');
    expect(Buffer.byteLength(file)).toBeGreaterThan(20 * 1024 * 1024);
    const checked = await dryRun(t, admin, file);
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({
      format: 'microsoft',
      totalRows: count,
      counts: { create: count, errors: 0 },
    });

    const tooLarge = await dryRun(t, admin, Buffer.alloc(IMPORT_MAX_BYTES + 1, 'a'));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.message).toBe(
      'The file is larger than 64 MB, the most one import reads (with at most 150,000 rows). Split it into several files.',
    );
  }, 120_000);
});

describe('a running import whose process dies (kill -9)', () => {
  it('holds its claim for at most 20 s without renewal, so another process resumes it soon after', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const atBatch = new Promise<void>((resolve) => (reached = resolve));
    afterBatch = async (_id, batch) => {
      if (batch !== 1) return;
      reached();
      await held;
    };
    try {
      const csv =
        'First name,Last name,E-mail\nLa,One,lock1@delta.test\nLa,Two,lock2@delta.test\nLa,Three,lock3@delta.test\n';
      const started = await startImport(t, admin, csv, 'lock.csv');
      expect(started.status).toBe(202);
      const running = finishImport(t, started.body.id);
      await atBatch;
      const job = await t.db
        .selectFrom('jobs')
        .select(sql<number>`extract(epoch from locked_until - now())`.as('seconds'))
        .where('kind', '=', 'migration.user-import')
        .where('status', '=', 'running')
        .executeTakeFirstOrThrow();
      release();
      await running;
      expect(Number(job.seconds)).toBeGreaterThan(0);
      expect(Number(job.seconds)).toBeLessThanOrEqual(20);
    } finally {
      release();
      afterBatch = undefined;
    }
  });
});
