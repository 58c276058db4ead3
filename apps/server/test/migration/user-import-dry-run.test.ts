import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { useAdminWorld } from '../support/admin-world.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { addDomain } from '../users/helpers.ts';
import { dryRun, fixture, upload, usersOf } from './helpers.ts';

const t = useAdminWorld();
let member: TestSession;

beforeAll(async () => {
  const other = await createOrganizationWithAdmin(t.db);
  member = await signInAs(t.db, await createUser(t.db, t.org.id));
  await addDomain(t.db, t.org.id, 'acme.test', 'verified');
  await addDomain(t.db, t.org.id, 'pending.acme.test', 'pending');
  await addDomain(t.db, other.id, 'other.test', 'verified');
  await createUser(t.db, other.id, { email: 'taken@other.test' });
});

describe('dry run of a user file', () => {
  it('reads Atrium’s own export: BOM, quoted fields, several groups per cell', async () => {
    const before = await usersOf(t, t.org.id);
    const result = await dryRun(t, t.adminSession, fixture('atrium-export.csv'));
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      format: 'atrium',
      totalRows: 4,
      counts: { create: 4, update: 0, unchanged: 0, errors: 0 },
      errors: [],
      seats: null,
    });
    // Nothing is written by a dry run.
    expect(await usersOf(t, t.org.id)).toEqual(before);
    const groups = await t.db
      .selectFrom('groups')
      .select('name')
      .where('organization_id', '=', t.org.id)
      .execute();
    expect(groups.map((g) => g.name)).toEqual(['Dashboard']);
  });

  it('reads Google Workspace’s user export (masked passwords, org unit paths)', async () => {
    const result = await dryRun(t, t.adminSession, fixture('google-export.csv'));
    expect(result.body).toMatchObject({ format: 'google', totalRows: 3, counts: { create: 3, errors: 0 } });
  });

  it('reads Microsoft 365’s user export (names from the display name when empty)', async () => {
    const result = await dryRun(t, t.adminSession, fixture('microsoft-export.csv'));
    expect(result.body).toMatchObject({
      format: 'microsoft',
      totalRows: 3,
      counts: { create: 3, errors: 0 },
    });
  });

  it('reads a semicolon-separated file with quoted semicolons and doubled quotes', async () => {
    const result = await dryRun(t, t.adminSession, fixture('semicolon-passwords.csv'));
    expect(result.body).toMatchObject({ format: 'atrium', totalRows: 2, counts: { create: 2, errors: 0 } });
  });

  it('lists every error with its row number and a reason', async () => {
    const result = await dryRun(t, t.adminSession, fixture('with-errors.csv'));
    expect(result.status).toBe(200);
    expect(result.body.counts).toEqual({ create: 1, update: 0, unchanged: 0, errors: 5 });
    expect(result.body.errors).toEqual([
      {
        row: 3,
        email: 'someone@unknown.test',
        message: 'Unknown domain: unknown.test is not one of your organisation’s verified domains',
      },
      {
        row: 4,
        email: 'taken@other.test',
        message: 'This address is already in use in another organisation',
      },
      {
        row: 5,
        email: 'weak@acme.test',
        message: 'Password: This password is too common. Choose one that is harder to guess',
      },
      {
        row: 6,
        email: 'badgroup@acme.test',
        message:
          'Group “This group name is far too long to be a group name in Atrium at all really”: Use at most 64 characters',
      },
      { row: 7, email: 'ok@acme.test', message: 'Duplicate row: the same e-mail address is on row 2' },
    ]);
  });

  it('refuses an address that is already an alias or a group’s address (Mail Settings)', async () => {
    const owner = await createUser(t.db, t.org.id, { email: 'owner@acme.test' });
    const added = await t.app.inject({
      method: 'POST',
      url: '/api/mail/aliases',
      headers: t.adminSession.headers,
      payload: { userId: owner.id, localPart: 'info', domain: 'acme.test' },
    });
    expect(added.statusCode, added.body).toBe(201);
    const result = await dryRun(t, t.adminSession, 'First name,Last name,E-mail\nIn,Fo,info@acme.test\n');
    expect(result.body.errors).toEqual([
      {
        row: 2,
        email: 'info@acme.test',
        message: 'This address is already an alias, a group’s address or otherwise in use for mail',
      },
    ]);
  });

  it('refuses a pending domain, a missing name and a malformed address', async () => {
    const csv = [
      'First name,Last name,E-mail',
      'Pat,Pending,pat@pending.acme.test',
      ',Nameless,nameless@acme.test',
      'No,At,not-an-address',
      'Two,Dots,two..dots@acme.test',
    ].join('\n');
    const result = await dryRun(t, t.adminSession, csv);
    expect(result.body.errors).toEqual([
      {
        row: 2,
        email: 'pat@pending.acme.test',
        message: 'Unknown domain: pending.acme.test is not one of your organisation’s verified domains',
      },
      { row: 3, email: 'nameless@acme.test', message: 'Enter the first name' },
      { row: 4, email: 'not-an-address', message: '“not-an-address” is not an e-mail address' },
      {
        row: 5,
        email: 'two..dots@acme.test',
        message:
          'E-mail address: Use letters, digits and . _ - + only, with no dot at the start or end or two dots in a row',
      },
    ]);
  });

  it('says which users would be updated and which are unchanged', async () => {
    const csv = [
      'First name,Last name,E-mail,Groups',
      'Existing,Same,same@acme.test,',
      'Renamed,Person,renamed@acme.test,',
      'Grouped,Person,grouped@acme.test,New group',
    ].join('\n');
    await createUser(t.db, t.org.id, { email: 'same@acme.test', firstName: 'Existing', lastName: 'Same' });
    await createUser(t.db, t.org.id, { email: 'renamed@acme.test', firstName: 'Old', lastName: 'Name' });
    await createUser(t.db, t.org.id, {
      email: 'grouped@acme.test',
      firstName: 'Grouped',
      lastName: 'Person',
    });
    const result = await dryRun(t, t.adminSession, csv);
    expect(result.body.counts).toEqual({ create: 0, update: 2, unchanged: 1, errors: 0 });
  });

  it('refuses a file whose header it does not know, naming the formats it reads', async () => {
    const result = await dryRun(t, t.adminSession, 'Name,Mail\nAda,ada@acme.test\n');
    expect(result.status).toBe(400);
    expect(result.body.error.message).toMatch(
      /not a header this import knows.*Google Workspace.*Microsoft 365/,
    );
  });

  it('refuses an empty file, a header without rows and broken CSV', async () => {
    expect((await dryRun(t, t.adminSession, '')).body.error.message).toBe('The file is empty.');
    expect((await dryRun(t, t.adminSession, 'First name,Last name,E-mail\n')).body.error.message).toBe(
      'The file has a header but no rows.',
    );
    const broken = await dryRun(
      t,
      t.adminSession,
      'First name,Last name,E-mail\n"Ada,Lovelace,ada@acme.test\n',
    );
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).toMatch(/^The file is not valid CSV/);
  });

  it('wants the file as text/csv', async () => {
    const result = await upload(
      t,
      t.adminSession,
      '/api/migration/user-imports/dry-run',
      '{}',
      'application/json',
    );
    expect(result.status).toBe(415);
    expect(result.body.error.message).toBe('Send the file as the request body with Content-Type text/csv');
  });

  const TOO_LARGE =
    'The file is larger than 64 MB, the most one import reads (with at most 150,000 rows). Split it into several files.';

  it('refuses a file over 64 MB', async () => {
    const header = 'First name,Last name,E-mail\n';
    const row = 'Ada,Lovelace,ada@acme.test\n';
    const big = header + row.repeat(Math.ceil((65 * 1024 * 1024) / row.length));
    const result = await dryRun(t, t.adminSession, big);
    expect(result.status).toBe(413);
    expect(result.body.error.message).toBe(TOO_LARGE);
  });

  it('refuses a file over 64 MB sent in chunks without a length', async () => {
    // Long rows, so the file passes 64 MB well before 150,000 rows.
    const row = `Ada,Lovelace,ada@acme.test,${'x'.repeat(64 * 1024)}\n`;
    const chunk = row.repeat(Math.ceil((1024 * 1024) / row.length));
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/migration/user-imports/dry-run',
      headers: { ...t.adminSession.headers, 'content-type': 'text/csv', 'transfer-encoding': 'chunked' },
      payload: Readable.from(
        (function* () {
          yield 'First name,Last name,E-mail\n';
          for (let i = 0; i < 65; i++) yield chunk;
        })(),
      ),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.message).toBe(TOO_LARGE);
    // The file is parsed as it arrives: 64 MB of it go through the parser first.
  }, 120_000);

  it('is for admins only', async () => {
    const result = await dryRun(t, member, fixture('atrium-export.csv'));
    expect(result.status).toBe(403);
  });
});
