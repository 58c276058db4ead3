import { beforeAll, describe, expect, it } from 'vitest';
import { MAIL_JOB } from '../../src/lib/mail.ts';
import { verifyPassword } from '../../src/lib/passwords.ts';
import { INVITE_INTERVAL_MS } from '../../src/modules/migration/user-import.job.ts';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';
import { addDomain, as } from '../users/helpers.ts';
import { finishImport, fixture, startImport, usersOf } from './helpers.ts';
import { useAdminWorld } from '../support/admin-world.ts';

const t = useAdminWorld();

beforeAll(async () => {
  const other = await createOrganizationWithAdmin(t.db);
  await addDomain(t.db, t.org.id, 'acme.test', 'verified');
  await addDomain(t.db, other.id, 'other.test', 'verified');
  await createUser(t.db, other.id, { email: 'taken@other.test' });
});

async function importAndWait(csv: string | Buffer, fileName = 'users.csv') {
  const started = await startImport(t, t.adminSession, csv, fileName);
  expect(started.status).toBe(202);
  await finishImport(t, started.body.id);
  return (await as(t, t.adminSession).get(`/api/migration/user-imports/${started.body.id}`)).body;
}

async function resultFile(id: string) {
  const response = await as(t, t.adminSession).get(`/api/migration/user-imports/${id}/result.csv`);
  expect(response.status).toBe(200);
  expect(response.response.headers['content-type']).toBe('text/csv; charset=utf-8');
  return response.response.body
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n');
}

describe('importing users from a file', () => {
  it('imports Atrium’s export in the background, creating the missing groups', async () => {
    const started = await startImport(t, t.adminSession, fixture('atrium-export.csv'), 'atrium-export.csv');
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      kind: 'user-import',
      fileName: 'atrium-export.csv',
      format: 'atrium',
      status: 'queued',
      totalRows: 4,
      rowsDone: 0,
      startedBy: 'Ada Admin',
    });
    await finishImport(t, started.body.id);
    const job = (await as(t, t.adminSession).get(`/api/migration/user-imports/${started.body.id}`)).body;
    expect(job).toMatchObject({
      status: 'done',
      rowsDone: 4,
      counts: { create: 4, update: 0, unchanged: 0, errors: 0 },
    });
    expect(job.finishedAt).not.toBeNull();
    const users = await usersOf(t, t.org.id);
    expect(users['ada@acme.test']).toEqual({
      name: 'Ada Lovelace',
      status: 'invited',
      hasPassword: false,
      groups: ['Dashboard', 'Engineering'],
    });
    expect(users['alan@acme.test']!.groups).toEqual(['Engineering', 'Research']);
    expect(users['grace@acme.test']!.groups).toEqual([]);
    expect(users['katherine@acme.test']!.name).toBe('Katherine Johnson, PhD');
    const groups = await t.db
      .selectFrom('groups')
      .select('name')
      .where('organization_id', '=', t.org.id)
      .orderBy('name')
      .execute();
    expect(groups.map((g) => g.name)).toEqual(['Dashboard', 'Engineering', 'Research']);
  });

  it('running the same file again changes nothing', async () => {
    const before = await usersOf(t, t.org.id);
    const again = await importAndWait(fixture('atrium-export.csv'));
    expect(again.counts).toEqual({ create: 0, update: 0, unchanged: 4, errors: 0 });
    expect(await usersOf(t, t.org.id)).toEqual(before);
  });

  it('imports Google Workspace’s export: the org unit becomes a group', async () => {
    const job = await importAndWait(fixture('google-export.csv'));
    expect(job.counts).toEqual({ create: 3, update: 0, unchanged: 0, errors: 0 });
    const users = await usersOf(t, t.org.id);
    expect(users['margaret@acme.test']).toMatchObject({ name: 'Margaret Hamilton', groups: [] });
    expect(users['linus@acme.test']).toMatchObject({ groups: ['Engineering'] });
    expect(users['barbara@acme.test']).toMatchObject({ groups: ['Research'] });
  });

  it('imports Microsoft 365’s export', async () => {
    const job = await importAndWait(fixture('microsoft-export.csv'));
    expect(job.counts).toEqual({ create: 3, update: 0, unchanged: 0, errors: 0 });
    const users = await usersOf(t, t.org.id);
    expect(users['marie@acme.test']).toMatchObject({ name: 'Marie Curie', status: 'invited' });
    expect(users['berlin@acme.test']).toMatchObject({ name: 'Room Berlin' });
  });

  it('sets passwords and queues invitations spaced out in time', async () => {
    const job = await importAndWait(fixture('semicolon-passwords.csv'));
    expect(job.counts).toEqual({ create: 2, update: 0, unchanged: 0, errors: 0 });
    const jose = await t.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'jose@acme.test')
      .executeTakeFirstOrThrow();
    expect(jose).toMatchObject({ first_name: 'José', last_name: 'Müller', status: 'active' });
    expect(await verifyPassword(jose.password_hash!, 'correct; horse battery')).toBe(true);
    const users = await usersOf(t, t.org.id);
    expect(users['jose@acme.test']!.groups).toEqual(['Sales', 'Support']);
    expect(users['zoe@acme.test']).toMatchObject({
      name: 'Zoë O"Brien',
      status: 'invited',
      hasPassword: false,
    });
    const zoe = await t.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'zoe@acme.test')
      .executeTakeFirstOrThrow();
    const invitation = await t.db
      .selectFrom('invitations')
      .selectAll()
      .where('user_id', '=', zoe.id)
      .executeTakeFirstOrThrow();
    expect(invitation.purpose).toBe('invite');
    // The sealed passwords are gone once imported.
    const sealed = await t.db
      .selectFrom('user_import_rows')
      .select('row_number')
      .where('import_id', '=', job.id)
      .where('password_enc', 'is not', null)
      .execute();
    expect(sealed).toEqual([]);
    expect(await resultFile(job.id)).toEqual([
      '"Row","E-mail","First name","Last name","Status","Message"',
      '"2","jose@acme.test","José","Müller","created",""',
      '"3","zoe@acme.test","Zoë","O""Brien","created","Invitation e-mail queued"',
    ]);
  });

  it('spaces invitations at most one every 200 ms', async () => {
    const csv = [
      'First name,Last name,E-mail,Send invitation',
      ...[1, 2, 3, 4].map((i) => `In,Vited${i},invited${i}@acme.test,yes`),
    ].join('\n');
    const before = new Date();
    const started = await startImport(t, t.adminSession, csv);
    expect(started.status).toBe(202);
    await finishImport(t, started.body.id);
    const mails = await t.db
      .selectFrom('jobs')
      .select('run_at')
      .where('kind', '=', MAIL_JOB)
      .where('created_at', '>=', before)
      .orderBy('run_at')
      .execute();
    expect(mails).toHaveLength(4);
    for (let i = 1; i < mails.length; i++) {
      expect(mails[i]!.run_at.getTime() - mails[i - 1]!.run_at.getTime()).toBeGreaterThanOrEqual(
        INVITE_INTERVAL_MS,
      );
    }
  });

  it('records an error per bad row in the result file and imports the rest', async () => {
    const job = await importAndWait(fixture('with-errors.csv'), 'with-errors.csv');
    expect(job.counts).toEqual({ create: 1, update: 0, unchanged: 0, errors: 5 });
    const lines = await resultFile(job.id);
    expect(lines).toEqual([
      '"Row","E-mail","First name","Last name","Status","Message"',
      '"2","ok@acme.test","Ok","Person","created",""',
      '"3","someone@unknown.test","Nobody","Domain","error","Unknown domain: unknown.test is not one of your organisation’s verified domains"',
      '"4","taken@other.test","Taken","Elsewhere","error","This address is already in use in another organisation"',
      '"5","weak@acme.test","Weak","Password","error","Password: This password is too common. Choose one that is harder to guess"',
      '"6","badgroup@acme.test","Bad","Group","error","Group “This group name is far too long to be a group name in Atrium at all really”: Use at most 64 characters"',
      '"7","ok@acme.test","Ok","Again","error","Duplicate row: the same e-mail address is on row 2"',
    ]);
    // The other organisation's user is untouched.
    const taken = await t.db
      .selectFrom('users')
      .select('organization_id')
      .where('email', '=', 'taken@other.test')
      .executeTakeFirstOrThrow();
    expect(taken.organization_id).not.toBe(t.org.id);
  });

  it('updates names and adds groups of existing users, never removing any', async () => {
    const csv = ['First name,Last name,E-mail,Groups', 'Ada,King,ada@acme.test,Founders'].join('\n');
    const job = await importAndWait(csv);
    expect(job.counts).toEqual({ create: 0, update: 1, unchanged: 0, errors: 0 });
    expect((await usersOf(t, t.org.id))['ada@acme.test']).toMatchObject({
      name: 'Ada King',
      groups: ['Dashboard', 'Engineering', 'Founders'],
    });
  });

  it('lists the imports on the migration page, newest first', async () => {
    const list = await as(t, t.adminSession).get('/api/migration/jobs');
    expect(list.status).toBe(200);
    expect(list.body.jobs.length).toBeGreaterThanOrEqual(8);
    expect(list.body.jobs.at(-1)).toMatchObject({
      kind: 'user-import',
      fileName: 'atrium-export.csv',
      status: 'done',
    });
  });

  it('writes each import to the activity log', async () => {
    const entries = await t.db
      .selectFrom('activity_log')
      .select(['action', 'target_label', 'details'])
      .where('organization_id', '=', t.org.id)
      .where('target_label', '=', 'atrium-export.csv')
      .orderBy('created_at')
      .execute();
    expect(entries.map((e) => e.action)).toEqual([
      'migration.user_import_started',
      'migration.user_import_finished',
    ]);
    expect(entries[1]!.details).toMatchObject({ rows: 4, created: 4, errors: 0 });
  });

  it('hides other organisations’ imports', async () => {
    const other = await createOrganizationWithAdmin(t.db);
    const otherAdmin = as(t, await signInAs(t.db, other.admin));
    const mine = (await as(t, t.adminSession).get('/api/migration/jobs')).body.jobs[0].id;
    expect((await otherAdmin.get(`/api/migration/user-imports/${mine}`)).status).toBe(404);
    expect((await otherAdmin.get(`/api/migration/user-imports/${mine}/result.csv`)).status).toBe(404);
    expect((await otherAdmin.post(`/api/migration/user-imports/${mine}/cancel`)).status).toBe(404);
    expect((await otherAdmin.get('/api/migration/jobs')).body.jobs).toEqual([]);
  });

  it('refuses to cancel a finished import', async () => {
    const mine = (await as(t, t.adminSession).get('/api/migration/jobs')).body.jobs[0].id;
    const cancel = await as(t, t.adminSession).post(`/api/migration/user-imports/${mine}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.message).toBe('This import has already finished');
  });
});
