import { beforeAll, describe, expect, it } from 'vitest';
import { UTF16_WITHOUT_BOM } from '../../src/modules/migration/csv-formats.ts';
import { UNDECODED_MESSAGE } from '../../src/modules/migration/user-import.rules.ts';
import { useAdminWorld } from '../support/admin-world.ts';
import { addDomain, as } from '../users/helpers.ts';
import { dryRun, finishImport, fixture, startImport, upload, usersOf } from './helpers.ts';

/**
 * Files in the encodings spreadsheets write (issue 42 item 8): Excel's "CSV" on Windows is
 * Windows-1252, its "CSV UTF-8" has a byte-order mark, its "Unicode text" is UTF-16 with a mark and
 * tab-separated. Each reads as the same names; bytes no encoding reads are named row by row.
 */

const t = useAdminWorld();

beforeAll(async () => {
  await addDomain(t.db, t.org.id, 'acme.test', 'verified');
});

const FILES = [
  'excel-windows-1252.csv',
  'excel-utf8-bom.csv',
  'excel-unicode-text-utf16le.txt',
  'unicode-text-utf16be.txt',
];

async function importAndWait(csv: string | Buffer, fileName = 'users.csv') {
  const started = await startImport(t, t.adminSession, csv, fileName);
  expect(started.status).toBe(202);
  await finishImport(t, started.body.id);
  return (await as(t, t.adminSession).get(`/api/migration/user-imports/${started.body.id}`)).body;
}

async function resultFile(id: string) {
  const response = await as(t, t.adminSession).get(`/api/migration/user-imports/${id}/result.csv`);
  return response.response.body
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n');
}

describe('files in the encodings spreadsheets write', () => {
  it.each(FILES)('the dry run of %s finds every row good', async (name) => {
    const result = await dryRun(t, t.adminSession, fixture(name));
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      format: 'atrium',
      totalRows: 3,
      counts: { create: 3, update: 0, unchanged: 0, errors: 0 },
      errors: [],
      seats: null,
    });
  });

  it('imports Excel’s Windows-1252 CSV with its accents exactly', async () => {
    const job = await importAndWait(fixture('excel-windows-1252.csv'), 'excel-windows-1252.csv');
    expect(job).toMatchObject({ status: 'done', counts: { create: 3, errors: 0 } });
    const users = await usersOf(t, t.org.id);
    expect(users['jose@acme.test']).toMatchObject({ name: 'José Müller', groups: ['Vertrieb Süd'] });
    expect(users['francoise@acme.test']).toMatchObject({ name: 'Françoise Lœvenbruck', groups: ['Ventes'] });
    expect(users['zoe@acme.test']).toMatchObject({ name: 'Zoë O’Brien' });
    const jose = await t.db
      .selectFrom('users')
      .select(['first_name', 'last_name'])
      .where('email', '=', 'jose@acme.test')
      .executeTakeFirstOrThrow();
    expect(jose).toEqual({ first_name: 'José', last_name: 'Müller' });
    // The result file the admin downloads shows them so too.
    expect((await resultFile(job.id))[1]).toBe('"2","jose@acme.test","José","Müller","created",""');
  });

  it('reads the same users from UTF-8 and UTF-16 (Excel’s Unicode text, tab-separated): nothing changes', async () => {
    for (const name of FILES.slice(1)) {
      const job = await importAndWait(fixture(name), name);
      expect(job).toMatchObject({
        status: 'done',
        counts: { create: 0, update: 0, unchanged: 3, errors: 0 },
      });
    }
  });

  it('tells Windows-1252 when its first accent is far into the file', async () => {
    // Fewer rows than the plan's free seats, long enough to come in several chunks.
    const rows = Array.from(
      { length: 900 },
      (_, i) => `Person,${'Long-Family-Name-'.repeat(4)}${i},person${i}@acme.test\r\n`,
    );
    const csv = Buffer.concat([
      Buffer.from(`First name,Last name,E-mail\r\n${rows.join('')}`),
      Buffer.from([...'Ren\u00e9e,Ga\u00df,renee@acme.test\r\n'].map((c) => c.charCodeAt(0))),
    ]);
    expect(csv.length).toBeGreaterThan(64 * 1024);
    const result = await dryRun(t, t.adminSession, csv);
    expect(result.body).toMatchObject({ totalRows: 901, counts: { create: 901, errors: 0 } });
  });
});

describe('bytes that are not UTF-8, UTF-16 or Windows-1252', () => {
  // 0x81 and 0x9D are undefined in Windows-1252; the second file turns from UTF-8 to Windows-1252.
  const undefinedBytes = Buffer.concat([
    Buffer.from('First name,Last name,E-mail\r\nAnn,Smith,ann@acme.test\r\nBo'),
    Buffer.from([0x81]),
    Buffer.from(',Smith,bo@acme.test\r\nCy,Jones,cy@acme.test\r\nDee,Ro'),
    Buffer.from([0x9d]),
    Buffer.from(',dee@acme.test\r\n'),
  ]);
  const mixed = Buffer.concat([
    Buffer.from('First name,Last name,E-mail\r\nJosé,Smith,jose2@acme.test\r\nAnn,M'),
    Buffer.from([0xfc]),
    Buffer.from('ller,ann@acme.test\r\n'),
  ]);

  it('the dry run names each row and column holding them', async () => {
    const result = await dryRun(t, t.adminSession, undefinedBytes);
    expect(result.status).toBe(200);
    expect(result.body.counts).toEqual({ create: 2, update: 0, unchanged: 0, errors: 2 });
    expect(result.body.errors).toEqual([
      { row: 3, email: 'bo@acme.test', message: `First name: ${UNDECODED_MESSAGE}` },
      { row: 5, email: 'dee@acme.test', message: `Last name: ${UNDECODED_MESSAGE}` },
    ]);
    expect(UNDECODED_MESSAGE).toMatch(/not UTF-8, UTF-16 or Windows-1252 text.*CSV UTF-8/);
    const turned = await dryRun(t, t.adminSession, mixed);
    expect(turned.body.counts).toEqual({ create: 1, update: 0, unchanged: 0, errors: 1 });
    expect(turned.body.errors).toEqual([
      { row: 3, email: 'ann@acme.test', message: `Last name: ${UNDECODED_MESSAGE}` },
    ]);
  });

  it('the import records the same errors and imports the other rows', async () => {
    const job = await importAndWait(undefinedBytes);
    expect(job).toMatchObject({ status: 'done', counts: { create: 2, errors: 2 } });
    const lines = await resultFile(job.id);
    expect(lines[2]).toBe(`"3","bo@acme.test","Bo\uFFFD","Smith","error","First name: ${UNDECODED_MESSAGE}"`);
    const users = await usersOf(t, t.org.id);
    expect(users['bo@acme.test']).toBeUndefined();
    expect(users['cy@acme.test']).toMatchObject({ name: 'Cy Jones' });
  });

  it('UTF-16 without its byte-order mark is a 400 saying so', async () => {
    const file = Buffer.from('First name\tLast name\tE-mail\r\nAnn\tSmith\tann@acme.test\r\n', 'utf16le');
    for (const url of ['/api/migration/user-imports/dry-run', '/api/migration/user-imports?fileName=u.txt']) {
      const response = await upload(t, t.adminSession, url, file);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toBe(UTF16_WITHOUT_BOM);
    }
  });
});
