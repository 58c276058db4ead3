import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createOrganizationWithAdmin, signInAs, type TestOrganization } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { exportUsersCsv } from '../../src/modules/users/users-export.ts';
import { decodeCursor } from '../../src/modules/users/user-cursor.ts';
import { usersPageQuery } from '../../src/modules/users/users-list.repository.ts';
import { dryRun, finishImport, startImport } from '../migration/helpers.ts';
import { addDomain, as } from './helpers.ts';

let t: TestApp;
let org: TestOrganization;
let admin: ReturnType<typeof as>;
let salesId: string;

beforeAll(async () => {
  t = await createTestApp();
  org = await createOrganizationWithAdmin(t.db);
  admin = as(t, await signInAs(t.db, org.admin));
  // 120 users, enough for three pages of 50; names and dates spread so every sort differs.
  await sql`
    insert into users (organization_id, email, first_name, last_name, name_key, status, created_at, last_sign_in_at)
    select ${org.id}::uuid,
      'u' || lpad(i::text, 3, '0') || '@list.example.com',
      (array['Ann','Bob','Cara','Dan','Eve','Finn'])[1 + i % 6],
      (array['Smith','Jones','Taylor','Brown','Walker'])[1 + i % 5],
      lower((array['Ann','Bob','Cara','Dan','Eve','Finn'])[1 + i % 6] || ' ' || (array['Smith','Jones','Taylor','Brown','Walker'])[1 + i % 5]),
      case when i % 10 = 0 then 'suspended' when i % 10 = 1 then 'invited' else 'active' end,
      timestamptz '2026-01-01' + i * interval '1 hour' + interval '123 microseconds',
      case when i % 3 = 0 then null else timestamptz '2026-06-01' + ((i * 37) % 120) * interval '1 minute' end
    from generate_series(1, 120) as i`.execute(t.db);
  const sales = await admin.post('/api/groups', { name: 'Sales' });
  salesId = sales.body.id;
  const u001 = await t.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', 'u001@list.example.com')
    .executeTakeFirstOrThrow();
  await admin.post(`/api/groups/${salesId}/members`, { userIds: [u001.id] });
});

afterAll(() => t.close());

type Summary = {
  id: string;
  email: string;
  name: string;
  status: string;
  groups: Array<{ name: string }>;
  lastSignInAt: string | null;
  createdAt: string;
};

async function allPages(query: string): Promise<Summary[]> {
  const seen: Summary[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const url: string = `/api/users?${query}${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await admin.get(url);
    expect(page.status).toBe(200);
    expect(page.body.users.length).toBeLessThanOrEqual(50);
    seen.push(...page.body.users);
    cursor = page.body.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  return seen;
}

describe('users list', () => {
  it('pages through everyone 50 at a time, sorted by name, without repeats or gaps', async () => {
    const first = await admin.get('/api/users');
    expect(first.body.users).toHaveLength(50);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const all = await allPages('sort=name&dir=asc');
    expect(all).toHaveLength(121);
    expect(new Set(all.map((u) => u.id)).size).toBe(121);
    const keys = all.map((u) => u.name.toLowerCase());
    expect(keys).toEqual([...keys].sort());
  });

  it.each([
    ['email', 'asc', (u: Summary) => u.email],
    ['email', 'desc', (u: Summary) => u.email],
    ['created', 'asc', (u: Summary) => u.createdAt],
    ['created', 'desc', (u: Summary) => u.createdAt],
    ['lastSignIn', 'asc', (u: Summary) => u.lastSignInAt ?? ''],
    ['lastSignIn', 'desc', (u: Summary) => u.lastSignInAt ?? ''],
    ['name', 'desc', (u: Summary) => u.name.toLowerCase()],
  ] as const)('sorts by %s %s across pages', async (sort, dir, key) => {
    const all = await allPages(`sort=${sort}&dir=${dir}`);
    expect(new Set(all.map((u) => u.id)).size).toBe(121);
    const values = all.map(key);
    const sorted = [...values].sort();
    expect(values).toEqual(dir === 'asc' ? sorted : sorted.reverse());
  });

  it('says how many users match with the first page (the search and status too), not with later ones', async () => {
    const first = await admin.get('/api/users');
    expect(first.body.total).toBe(121);
    const second = await admin.get(`/api/users?${new URLSearchParams({ cursor: first.body.nextCursor })}`);
    expect(second.status).toBe(200);
    expect(second.body.total).toBeNull();
    expect((await admin.get('/api/users?status=suspended')).body.total).toBe(12);
    const zzz = await admin.get('/api/users?q=zzzz');
    expect(zzz.body).toMatchObject({ users: [], total: 0 });
  });

  it('puts users who never signed in first when sorting by last sign-in ascending', async () => {
    const page = await admin.get('/api/users?sort=lastSignIn&dir=asc');
    expect(page.body.users[0].lastSignInAt).toBeNull();
    const desc = await admin.get('/api/users?sort=lastSignIn&dir=desc');
    expect(desc.body.users[0].lastSignInAt).not.toBeNull();
  });

  it('filters by status, also across pages', async () => {
    const suspended = await allPages('status=suspended&sort=created&dir=desc');
    expect(suspended).toHaveLength(12);
    expect(suspended.every((u) => u.status === 'suspended')).toBe(true);
    const invited = await allPages('status=invited');
    expect(invited).toHaveLength(12);
  });

  it('searches by prefix of the first name, the last name, the full name and the e-mail', async () => {
    const byFirst = await allPages('q=ann');
    expect(byFirst.length).toBe(20);
    expect(byFirst.every((u) => u.name.startsWith('Ann '))).toBe(true);
    const byLast = await allPages('q=WALK');
    expect(byLast.length).toBe(24);
    expect(byLast.every((u) => u.name.endsWith(' Walker'))).toBe(true);
    const byFull = await allPages('q=' + encodeURIComponent('bob   jones'));
    expect(byFull.length).toBeGreaterThan(0);
    expect(byFull.every((u) => u.name === 'Bob Jones')).toBe(true);
    const byEmail = await admin.get('/api/users?q=u11');
    expect(byEmail.body.users.map((u: Summary) => u.email).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `u11${i}@list.example.com`),
    );
    // LIKE wildcards in the search text are taken literally.
    expect((await admin.get('/api/users?q=%25')).body.users).toEqual([]);
    expect((await admin.get('/api/users?q=_')).body.users).toEqual([]);
  });

  it('finds the same pages whichever way a search runs (collect and sort, or walk the index)', async () => {
    for (const sort of ['name', 'email', 'created', 'lastSignIn'] as const) {
      for (const dir of ['asc', 'desc'] as const) {
        const filter = { q: 'u', sort, dir };
        const first = await admin.get(`/api/users?q=u&sort=${sort}&dir=${dir}`);
        const cursor = decodeCursor(first.body.nextCursor, sort, dir);
        const ids = async (strategy: 'ordered' | 'collect') =>
          (await usersPageQuery(t.db, org.id, filter, cursor, 50, strategy).execute()).map((r) => r.id);
        const walked = await ids('ordered');
        expect(walked.length).toBeGreaterThan(0);
        expect(await ids('collect')).toEqual(walked);
      }
    }
  });

  it('shows each user’s groups, fetched for the whole page at once', async () => {
    const page = await admin.get('/api/users?q=u001');
    expect(page.body.users[0].groups.map((g: { name: string }) => g.name)).toEqual(['Sales']);
    const adminRow = await admin.get(`/api/users?q=${encodeURIComponent(org.admin.email)}`);
    expect(adminRow.body.users[0].groups).toEqual([
      { id: org.dashboardGroupId, name: 'Dashboard', isSystem: true },
    ]);
  });

  it('refuses a cursor that was tampered with or belongs to another sort', async () => {
    const page = await admin.get('/api/users?sort=name');
    const other = await admin.get(`/api/users?sort=created&cursor=${page.body.nextCursor}`);
    expect(other.status).toBe(400);
    expect(other.body.error.fields.cursor).toMatch(/no longer valid/);
    const junk = await admin.get('/api/users?cursor=bm90LWpzb24');
    expect(junk.status).toBe(400);
  });

  it('refuses an unknown sort or status with a message naming the field', async () => {
    const bad = await admin.get('/api/users?sort=salary');
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields.sort).toBeDefined();
  });
});

describe('CSV export', () => {
  it('exports what is filtered, quoted, with formulas neutralised', async () => {
    await t.db
      .insertInto('users')
      .values({
        organization_id: org.id,
        email: 'formula@list.example.com',
        first_name: '=HYPERLINK("http://evil")',
        last_name: '+Quote"d, Name',
        name_key: 'zz formula',
        status: 'active',
      })
      .execute();
    const response = await t.app.inject({
      url: '/api/users/export.csv?q=formula',
      headers: (await signInAs(t.db, org.admin)).headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    expect(response.headers['content-disposition']).toMatch(/attachment; filename="users-.*\.csv"/);
    const lines = response.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      '"First name","Last name","E-mail","Personal email","Status","Groups","Last sign-in","Created"',
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^"'=HYPERLINK\(""http:\/\/evil""\)","'\+Quote""d, Name","formula@list\.example\.com","","active",/,
    );
  });

  it('exports every matching row with its groups, not only the first page', async () => {
    const response = await t.app.inject({
      url: '/api/users/export.csv?status=invited',
      headers: (await signInAs(t.db, org.admin)).headers,
    });
    const lines = response.body.trim().split('\r\n');
    expect(lines).toHaveLength(1 + 12);
    expect(lines.find((l) => l.includes('u001@'))).toContain('"Sales"');
    const everyone = await t.app.inject({
      url: '/api/users/export.csv',
      headers: (await signInAs(t.db, org.admin)).headers,
    });
    expect(everyone.body.trim().split('\r\n')).toHaveLength(1 + 122);
  });

  it('reads the list in batches while streaming, so every row comes out once', async () => {
    const stream = await exportUsersCsv(t.db, org.id, { sort: 'email', dir: 'asc' }, 7);
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    const emails = text
      .trim()
      .split('\r\n')
      .slice(1)
      .map((l) => l.split('","')[2]);
    expect(emails).toHaveLength(122);
    expect(new Set(emails).size).toBe(122);
    expect(emails).toEqual([...emails].sort());
  });

  it('carries each person’s personal email under the import’s own column, so the file imports again', async () => {
    const other = await createOrganizationWithAdmin(t.db);
    await addDomain(t.db, other.id, 'reimport.example', 'verified');
    const session = await signInAs(t.db, other.admin);
    const otherAdmin = as(t, session);
    const added = await otherAdmin.post('/api/users', {
      firstName: 'Bea',
      lastName: 'Home',
      localPart: 'bea',
      domain: 'reimport.example',
      credential: 'invitation',
      personalEmail: 'Bea.Home@Example.NET',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);

    const exported = await t.app.inject({ url: '/api/users/export.csv', headers: session.headers });
    expect(exported.statusCode).toBe(200);
    const file = exported.body;
    const lines = file
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      '"First name","Last name","E-mail","Personal email","Status","Groups","Last sign-in","Created"',
    );
    expect(lines.find((l) => l.includes('"bea@reimport.example"'))).toMatch(
      /^"Bea","Home","bea@reimport\.example","bea\.home@example\.net","invited",/,
    );
    expect(lines.find((l) => l.includes(`"${other.admin.email}"`))).toContain(`"${other.admin.email}","",`);

    // Bea deleted, the export imported again: she is back, with the address her invitation goes to.
    expect((await otherAdmin.delete(`/api/users/${added.body.user.id}`)).status).toBe(200);
    const checked = await dryRun(t, session, file);
    expect(checked.body).toMatchObject({ counts: { create: 1, unchanged: 1, errors: 0 }, errors: [] });
    const started = await startImport(t, session, file, 'users-export.csv');
    expect(started.status).toBe(202);
    await finishImport(t, started.body.id);
    const bea = await t.db
      .selectFrom('users')
      .select(['first_name', 'last_name', 'personal_email'])
      .where('email', '=', 'bea@reimport.example')
      .executeTakeFirstOrThrow();
    expect(bea).toEqual({ first_name: 'Bea', last_name: 'Home', personal_email: 'bea.home@example.net' });
  });
});
