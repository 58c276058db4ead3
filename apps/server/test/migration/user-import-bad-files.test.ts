import { beforeAll, describe, expect, it } from 'vitest';
import { JSON_NOT_CSV, NOT_TEXT } from '../../src/modules/migration/csv-formats.ts';
import { useAdminWorld } from '../support/admin-world.ts';
import { addDomain } from '../users/helpers.ts';
import { dryRun, finishImport, startImport, upload } from './helpers.ts';

/**
 * Files that are not CSV, or hold what no text column can: each is a 400 naming the row (or the
 * row an error names), and the dry run and the import say the same (issue 30 item 6).
 */

const t = useAdminWorld();

beforeAll(async () => {
  await addDomain(t.db, t.org.id, 'gamma.test', 'verified');
});

const HEADER = 'First name,Last name,E-mail\n';

/** The dry run and the import of one file: both must refuse it with the same 400. */
async function bothRefuse(csv: string | Buffer, contentType = 'text/csv') {
  const checked = await upload(t, t.adminSession, '/api/migration/user-imports/dry-run', csv, contentType);
  const imported = await upload(
    t,
    t.adminSession,
    '/api/migration/user-imports?fileName=bad.csv',
    csv,
    contentType,
  );
  expect(checked.status).toBe(400);
  expect(imported.status).toBe(400);
  expect(imported.body.error.message).toBe(checked.body.error.message);
  return checked.body.error.message as string;
}

async function importCount() {
  const row = await t.db
    .selectFrom('user_imports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', t.org.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('files that are not CSV', () => {
  it('a quote inside an unquoted field is a 400 naming the row', async () => {
    const message = await bothRefuse(
      `${HEADER}Bea,Smith,bea@gamma.test\nAnn,O"Brien,ann@gamma.test\nCy,Jones,cy@gamma.test\n`,
    );
    expect(message).toMatch(/^The file is not valid CSV: row 3: /);
    expect(message).toMatch(/quote/i);
    // The example fits this problem, and only this one.
    expect(message).toContain('"O""Brien"');
    expect(await importCount()).toBe(0);
  });

  it('an unclosed quote is a 400 naming the row it starts on', async () => {
    const message = await bothRefuse(`${HEADER}Bea,Smith,bea@gamma.test\n"Ann,O'Brien,ann@gamma.test\n`);
    expect(message).toMatch(/^The file is not valid CSV: row 3: /);
  });

  it('binary junk is a 400', async () => {
    const junk = Buffer.alloc(4096);
    for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919 + 13) % 256;
    const message = await bothRefuse(junk);
    expect(message).toBe(NOT_TEXT);
    expect(message).toMatch(/^This is not a CSV file: /);
    expect(message).not.toContain('Brien');
  });

  it('binary data without a NUL on its first line is a 400 saying it is not text, not a quoting hint', async () => {
    const junk = Buffer.alloc(4096);
    for (let i = 0; i < junk.length; i++) junk[i] = 1 + ((i * 7919 + 13) % 255);
    junk[40] = 0x0a;
    const message = await bothRefuse(junk);
    expect(message).toBe(NOT_TEXT);
  });

  it('a zip (an .xlsx sent as CSV) is a 400 saying so', async () => {
    const zip = Buffer.concat([
      Buffer.from('PK\u0003\u0004'),
      Buffer.alloc(200, 0x41),
      Buffer.from([0, 0, 0xff]),
    ]);
    const message = await bothRefuse(zip);
    expect(message).toBe(
      'This is not a CSV file: it is an Excel workbook or another zip archive. Save it as “CSV UTF-8 (comma delimited)” and send that file.',
    );
  });

  it('JSON sent as text/plain is a 400', async () => {
    const message = await bothRefuse(
      JSON.stringify([{ firstName: 'Ann', lastName: 'Smith', email: 'ann@gamma.test' }]),
      'text/plain',
    );
    expect(message).toBe(JSON_NOT_CSV);
    expect(message).toMatch(/^This is not a CSV file: it holds JSON\. /);
    expect(message).not.toContain('Brien');
    const object = await bothRefuse(
      '\n  {"users":[{"email":"ann@gamma.test","name":"Ann"}]}',
      'application/csv',
    );
    expect(object).toBe(JSON_NOT_CSV);
  });
});
describe('a NUL inside a field', () => {
  const csv = `${HEADER}Bea,Smith,bea@gamma.test\nAnn,Ro\u0000ss,ann@gamma.test\nCy,Jones,cy@gamma.test\n`;

  it('the dry run names its row and column', async () => {
    const result = await dryRun(t, t.adminSession, csv);
    expect(result.status).toBe(200);
    expect(result.body.counts).toEqual({ create: 2, update: 0, unchanged: 0, errors: 1 });
    expect(result.body.errors).toEqual([
      { row: 3, email: 'ann@gamma.test', message: expect.stringMatching(/^Last name: .*NUL/) },
    ]);
  });

  it('the import records the same error for that row and imports the others', async () => {
    const started = await startImport(t, t.adminSession, csv);
    expect(started.status).toBe(202);
    await finishImport(t, started.body.id);
    const job = await t.admin.get(`/api/migration/user-imports/${started.body.id}`);
    expect(job.body).toMatchObject({ status: 'done', counts: { create: 2, errors: 1 } });
    // The result file says what the dry run said, showing the refused character as �.
    const dry = await dryRun(t, t.adminSession, csv);
    const result = await t.admin.get(`/api/migration/user-imports/${started.body.id}/result.csv`);
    const lines = result.response.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[2]).toBe(`"3","ann@gamma.test","Ann","Ro\uFFFDss","error","${dry.body.errors[0].message}"`);
  });

  it('in any column (a group name too) it is an error of that row, never a 500', async () => {
    const rows = [
      `Ann\u0000,Smith,ann2@gamma.test`,
      `Ann,Smith,an\u0000n3@gamma.test`,
      `Ann,Smith,ann4@gamma.test,Team\u0000A`,
    ];
    const withGroups = `First name,Last name,E-mail,Groups\n${rows.join('\n')}\n`;
    const result = await dryRun(t, t.adminSession, withGroups);
    expect(result.status).toBe(200);
    expect(result.body.errors.map((e: { row: number }) => e.row)).toEqual([2, 3, 4]);
    const started = await startImport(t, t.adminSession, withGroups);
    expect(started.status).toBe(202);
    await finishImport(t, started.body.id);
    const job = await t.admin.get(`/api/migration/user-imports/${started.body.id}`);
    expect(job.body).toMatchObject({ status: 'done', counts: { create: 0, errors: 3 } });
  });
});
