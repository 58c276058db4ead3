import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '@atrium/contracts/activity';
import { recordActivity } from '../../src/modules/activity/activity.repository.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
  type TestSession,
} from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let orgA: TestOrganization;
let orgB: TestOrganization;
let adminA: TestSession;
let adminB: TestSession;
let memberA: TestSession;

async function get(session: TestSession, url: string) {
  return t.app.inject({ url, headers: session.headers });
}

async function listAll(session: TestSession, query: string): Promise<ActivityEntry[]> {
  const res = await get(session, `/api/activity?${query}`);
  expect(res.statusCode).toBe(200);
  return res.json().items;
}

beforeAll(async () => {
  t = await createTestApp();
  orgA = await createOrganizationWithAdmin(t.db);
  orgB = await createOrganizationWithAdmin(t.db);
  adminA = await signInAs(t.db, orgA.admin);
  adminB = await signInAs(t.db, orgB.admin);
  memberA = await signInAs(t.db, await createUser(t.db, orgA.id));

  // A small, known log for orgA (and one entry of orgB) with explicit times.
  const entries = [
    { at: '2026-01-01T10:00:00Z', actor: orgA.admin, action: 'domain.added', target: 'a.example' },
    { at: '2026-01-02T10:00:00Z', actor: null, action: 'domain.verified', target: 'a.example' },
    { at: '2026-01-03T10:00:00Z', actor: orgA.admin, action: 'user.created', target: 'Uma User' },
    {
      at: '2026-01-04T10:00:00Z',
      actor: orgA.admin,
      action: 'app.installed',
      target: '=HYPERLINK("http://x")',
    },
  ];
  for (const e of entries) {
    await sql`insert into activity_log (organization_id, actor_user_id, actor_label, action, target_type, target_id, target_label, ip, details, created_at)
      values (${orgA.id}, ${e.actor?.id ?? null}, ${e.actor ? 'Ada Admin' : 'System'}, ${e.action}, 'thing', 't1', ${e.target}, '203.0.113.9', ${JSON.stringify({ note: 'say "hi"' })}, ${e.at})`.execute(
      t.db,
    );
  }
  await recordActivity(t.db, {
    organizationId: orgB.id,
    actor: { userId: orgB.admin.id, label: 'Bea Admin' },
    action: 'domain.added',
    target: { type: 'domain', id: 'b1', label: 'b.example' },
  });
});

afterAll(async () => {
  await t.close();
});

describe('recording', () => {
  it('leaves no entry when the change’s transaction fails', async () => {
    const before = (await listAll(adminA, 'limit=200')).length;
    const attempt = t.db.transaction().execute(async (trx) => {
      await recordActivity(trx, {
        organizationId: orgA.id,
        actor: { userId: orgA.admin.id, label: 'Ada Admin' },
        action: 'group.created',
        target: { type: 'group', id: 'g1', label: 'Sales' },
        ip: '198.51.100.7',
      });
      throw new Error('the group could not be created');
    });
    await expect(attempt).rejects.toThrow('could not be created');
    const after = await listAll(adminA, 'limit=200');
    expect(after).toHaveLength(before);
    expect(after.some((e) => e.action === 'group.created')).toBe(false);
  });

  it('is append-only: the database refuses to update or delete entries', async () => {
    await expect(
      t.db.updateTable('activity_log').set({ actor_label: 'Someone else' }).execute(),
    ).rejects.toThrow(/append-only/);
    await expect(
      t.db.deleteFrom('activity_log').where('organization_id', '=', orgA.id).execute(),
    ).rejects.toThrow(/append-only/);
    await expect(sql`truncate activity_log`.execute(t.db)).rejects.toThrow(/append-only/);
    expect((await listAll(adminA, 'limit=200')).length).toBeGreaterThanOrEqual(4);
  });

  it('goes away only with its organisation', async () => {
    const doomed = await createOrganizationWithAdmin(t.db);
    await recordActivity(t.db, { organizationId: doomed.id, actor: null, action: 'setup.finished' });
    await t.db.deleteFrom('organizations').where('id', '=', doomed.id).execute();
    const left = await t.db
      .selectFrom('activity_log')
      .select('id')
      .where('organization_id', '=', doomed.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('offers no route that changes the log', async () => {
    const entry = (await listAll(adminA, 'limit=1'))[0]!;
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: `/api/activity/${entry.id}`, headers: adminA.headers });
      expect(res.statusCode).toBe(404);
    }
  });
});

describe('listing and filters', () => {
  it('shows the whole entry, newest first', async () => {
    const items = await listAll(adminA, 'from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z');
    expect(items.map((e) => e.action)).toEqual([
      'app.installed',
      'user.created',
      'domain.verified',
      'domain.added',
    ]);
    expect(items[1]).toEqual({
      id: expect.any(String),
      actor: { userId: orgA.admin.id, label: 'Ada Admin' },
      action: 'user.created',
      target: { type: 'thing', id: 't1', label: 'Uma User' },
      ip: '203.0.113.9',
      details: { note: 'say "hi"' },
      createdAt: '2026-01-03T10:00:00.000Z',
    });
  });

  it('filters by actor, the system, kind, exact action and date range', async () => {
    const range = 'from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z';
    const actions = async (q: string) => (await listAll(adminA, `${range}&${q}`)).map((e) => e.action);
    expect(await actions(`actor=${orgA.admin.id}`)).toEqual([
      'app.installed',
      'user.created',
      'domain.added',
    ]);
    expect(await actions('actor=system')).toEqual(['domain.verified']);
    expect(await actions('kind=domain')).toEqual(['domain.verified', 'domain.added']);
    expect(await actions('kind=domain.added')).toEqual(['domain.added']);
    expect(await actions(`kind=domain&actor=${orgA.admin.id}`)).toEqual(['domain.added']);
    const window = await listAll(adminA, 'from=2026-01-02T00:00:00Z&to=2026-01-04T00:00:00Z');
    expect(window.map((e) => e.action)).toEqual(['user.created', 'domain.verified']);
  });

  it('lists the actors for the filter', async () => {
    const res = await get(adminA, '/api/activity/actors');
    expect(res.json().actors).toEqual(
      expect.arrayContaining([
        { value: orgA.admin.id, label: 'Ada Admin' },
        { value: 'system', label: 'System' },
      ]),
    );
    expect(JSON.stringify(res.json())).not.toContain('Bea Admin');
  });

  it('lists every actor once, under their latest name, with the system last', async () => {
    const org = await createOrganizationWithAdmin(t.db);
    const session = await signInAs(t.db, org.admin);
    const people = [org.admin, await createUser(t.db, org.id), await createUser(t.db, org.id)];
    const labels = ['Carol', 'Alice', 'Bob'];
    // Explicit times: two entries written within one clock tick would tie on created_at.
    for (const [i, person] of people.entries()) {
      for (const [label, at] of [
        [`${labels[i]} (old name)`, '2026-01-01T10:00:00Z'],
        [labels[i], '2026-01-02T10:00:00Z'],
      ]) {
        await sql`insert into activity_log (organization_id, actor_user_id, actor_label, action, created_at)
          values (${org.id}, ${person.id}, ${label}, 'group.created', ${at})`.execute(t.db);
      }
    }
    await recordActivity(t.db, { organizationId: org.id, actor: null, action: 'domain.verified' });
    const res = await get(session, '/api/activity/actors');
    expect(res.json().actors).toEqual([
      { value: people[1]!.id, label: 'Alice' },
      { value: people[2]!.id, label: 'Bob' },
      { value: people[0]!.id, label: 'Carol' },
      { value: 'system', label: 'System' },
    ]);
  });

  it('names the filter that is wrong', async () => {
    const cases: [string, string][] = [
      ['from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'to'],
      ['from=yesterday', 'from'],
      ['kind=DROP%20TABLE', 'kind'],
      ['actor=someone', 'actor'],
      ['cursor=abc', 'cursor'],
    ];
    for (const [query, field] of cases) {
      const res = await get(adminA, `/api/activity?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(Object.keys(res.json().error.fields), query).toEqual([field]);
    }
  });
});

describe('access and isolation', () => {
  it('is for admins only', async () => {
    for (const url of ['/api/activity', '/api/activity/actors', '/api/activity/export']) {
      expect((await get(memberA, url)).statusCode).toBe(403);
      expect((await t.app.inject(url)).statusCode).toBe(401);
    }
  });

  it('never shows another organisation’s entries, even when filtering by its people', async () => {
    const mine = await listAll(adminB, 'limit=200');
    expect(mine.map((e) => e.target?.label)).toEqual(['b.example']);
    expect(await listAll(adminB, `actor=${orgA.admin.id}`)).toEqual([]);
    const csv = (await get(adminB, '/api/activity/export')).body;
    expect(csv).toContain('b.example');
    expect(csv).not.toContain('a.example');
    const actors = (await get(adminB, '/api/activity/actors')).json().actors;
    expect(actors).toEqual([{ value: orgB.admin.id, label: 'Bea Admin' }]);
  });

  it('a cursor from another organisation’s list shows nothing of that organisation', async () => {
    const page = (await get(adminA, '/api/activity?limit=1')).json();
    expect(page.nextCursor).toEqual(expect.any(String));
    const items = await listAll(adminB, `limit=200&cursor=${page.nextCursor}`);
    expect(items.every((e) => e.target?.label === 'b.example')).toBe(true);
  });
});

describe('CSV export', () => {
  it('exports the filtered log as a spreadsheet-safe CSV', async () => {
    const res = await get(adminA, '/api/activity/export?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="activity-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(
      '"Time (UTC)","Actor","Actor id","Action","Object type","Object","Object id","IP address","Details"',
    );
    expect(lines).toHaveLength(5);
    // A formula in an object's name is written as text, never as a formula.
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(lines[1]).toContain('"{""note"":""say \\""hi\\""""}"');
    expect(lines[4]).toMatch(/^"2026-01-01T10:00:00.000Z","Ada Admin","[0-9a-f-]{36}","domain.added"/);
  });

  it('exports only what the filter selects', async () => {
    const res = await get(adminA, '/api/activity/export?actor=system&from=2026-01-01T00:00:00Z');
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"System","","domain.verified"');
  });

  it('refuses a bad filter with a JSON error', async () => {
    const res = await get(adminA, '/api/activity/export?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.fields).toEqual({ to: 'The end of the date range must be after its start' });
  });
});
