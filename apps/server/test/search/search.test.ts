import { beforeAll, describe, expect, it } from 'vitest';
import { installBody } from '../apps/helpers.ts';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';
import { addDomain, as } from '../users/helpers.ts';
import { useAdminWorld } from '../support/admin-world.ts';

const t = useAdminWorld();
let bobId: string;

type Hit = { id: string; label: string; secondary: string | null };
type Results = { users: Hit[]; groups: Hit[]; domains: Hit[]; apps: Hit[] };

beforeAll(async () => {
  bobId = (
    await createUser(t.db, t.org.id, { firstName: 'Bob', lastName: 'Marley', email: 'robert.m@acme.test' })
  ).id;
  await createUser(t.db, t.org.id, { firstName: 'Carla', lastName: 'Bobbins', email: 'carla@acme.test' });
  await createUser(t.db, t.org.id, { firstName: 'Dora', lastName: 'Explorer', email: 'bobcat@acme.test' });
  await createUser(t.db, t.org.id, { firstName: 'Per_cent', lastName: '100%', email: 'percent@acme.test' });
  await t.admin.post('/api/groups', { name: 'Bob fans' });
  await addDomain(t.db, t.org.id, 'bobs-burgers.example');
  await addDomain(t.db, t.org.id, 'other.example', 'pending');
  expect((await t.admin.post('/api/apps', installBody({ title: 'Bobtail Wiki' }))).status).toBe(201);

  // Another organisation with things that match every search below.
  const other = await createOrganizationWithAdmin(t.db);
  await createUser(t.db, other.id, { firstName: 'Bob', lastName: 'Other', email: 'bob@other.test' });
  const otherAdmin = as(t, await signInAs(t.db, other.admin));
  await otherAdmin.post('/api/groups', { name: 'Bob club' });
  await addDomain(t.db, other.id, 'bob.example');
  await otherAdmin.post(
    '/api/apps',
    installBody({
      title: 'Bob app',
      launchUrl: 'https://bob.example.com',
      redirectUris: ['https://bob.example.com/cb'],
    }),
  );
});

async function search(q: string, limit?: number): Promise<Results> {
  const query = new URLSearchParams({ q, ...(limit ? { limit: String(limit) } : {}) });
  const res = await t.admin.get(`/api/search?${query}`);
  expect(res.status).toBe(200);
  return res.body as Results;
}

const labels = (hits: Hit[]) => hits.map((h) => h.label);

describe('header search', () => {
  it('finds users by the prefix of their first name, last name and e-mail, ignoring case', async () => {
    const found = await search('BOB');
    // The full-name match first, then the last name, then the e-mail; one row each.
    expect(found.users).toEqual([
      { id: bobId, label: 'Bob Marley', secondary: 'robert.m@acme.test' },
      expect.objectContaining({ label: 'Carla Bobbins', secondary: 'carla@acme.test' }),
      expect.objectContaining({ label: 'Dora Explorer', secondary: 'bobcat@acme.test' }),
    ]);
    expect(labels((await search('marl')).users)).toEqual(['Bob Marley']);
    expect(labels((await search('robert.')).users)).toEqual(['Bob Marley']);
    expect(labels((await search('  bob   mar ')).users)).toEqual(['Bob Marley']);
  });

  it('finds users by any part of the name or the address, from 3 characters', async () => {
    expect(labels((await search('arle')).users)).toEqual(['Bob Marley']);
    expect(labels((await search('cat@acme')).users)).toEqual(['Dora Explorer']);
    expect(labels((await search('OB MARL')).users)).toEqual(['Bob Marley']);
    // The company's domain finds its users (and never another organisation's).
    expect(labels((await search('acme.test', 10)).users)).toEqual(
      expect.arrayContaining(['Bob Marley', 'Carla Bobbins', 'Dora Explorer', 'Per_cent 100%']),
    );
    expect((await search('other.test')).users).toEqual([]);
    // Two characters match only the start of a name or address.
    expect(labels((await search('ar')).users)).toEqual([]);
    expect(labels((await search('ca')).users)).toEqual(['Carla Bobbins']);
  });

  it('finds a group, a domain and an app by the start of their name', async () => {
    const found = await search('bob');
    expect(found.groups).toEqual([expect.objectContaining({ label: 'Bob fans', secondary: null })]);
    expect(found.domains).toEqual([
      expect.objectContaining({ label: 'bobs-burgers.example', secondary: 'Verified' }),
    ]);
    expect(found.apps).toEqual([
      expect.objectContaining({ label: 'Bobtail Wiki', secondary: 'wiki.example.com' }),
    ]);
    expect(labels((await search('dash')).groups)).toEqual(['Dashboard']);
    expect((await search('oth')).domains).toEqual([
      expect.objectContaining({ label: 'other.example', secondary: 'Pending verification' }),
    ]);
  });

  it("never returns another organisation's things", async () => {
    const found = await search('bob', 10);
    const all = [...found.users, ...found.groups, ...found.domains, ...found.apps];
    expect(labels(all)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/Other|club|^bob\.example$|Bob app/)]),
    );
    expect(labels(found.users)).toEqual(['Bob Marley', 'Carla Bobbins', 'Dora Explorer']);
  });

  it('returns at most `limit` of each kind, and nothing secret', async () => {
    const found = await search('bob', 1);
    expect(found.users).toHaveLength(1);
    expect(Object.keys(found.users[0]!).sort()).toEqual(['id', 'label', 'secondary']);
    expect(JSON.stringify(await search('bob'))).not.toMatch(/client|secret|token|dkim|hash/i);
  });

  it('takes % and _ literally', async () => {
    expect(await search('%')).toEqual({ users: [], groups: [], domains: [], apps: [] });
    expect((await search('_')).users).toEqual([]);
    expect(labels((await search('per_')).users)).toEqual(['Per_cent 100%']);
    expect(labels((await search('100%')).users)).toEqual(['Per_cent 100%']);
    expect((await search('pe%')).users).toEqual([]);
    expect((await search('\\')).users).toEqual([]);
  });

  it('answers nothing found with empty lists', async () => {
    expect(await search('zzz')).toEqual({ users: [], groups: [], domains: [], apps: [] });
  });
});

describe('who may search', () => {
  it('is for admins only: 401 when signed out, 403 for a member', async () => {
    const anonymous = await t.app.inject({ url: '/api/search?q=bob' });
    expect(anonymous.statusCode).toBe(401);
    const member = as(t, await signInAs(t.db, await createUser(t.db, t.org.id)));
    const refused = await member.get('/api/search?q=bob');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
  });
});

describe('bad search text', () => {
  it.each([
    ['missing', ''],
    ['empty', 'q='],
    ['only spaces', 'q=%20%20'],
    ['too long', `q=${'a'.repeat(101)}`],
    ['a control character', 'q=bob%07'],
    ['a NUL', 'q=bob%00'],
    ['a text-direction override', 'q=bob%E2%80%AE'],
  ])('answers 400 naming q when it is %s', async (_case, query) => {
    const res = await t.admin.get(`/api/search?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(Object.keys(res.body.error.fields)).toEqual(['q']);
  });

  it('answers 400 naming limit when it is out of range', async () => {
    const res = await t.admin.get('/api/search?q=bob&limit=11');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.fields)).toEqual(['limit']);
  });

  it('takes 100 characters', async () => {
    expect((await t.admin.get(`/api/search?q=${'a'.repeat(100)}`)).status).toBe(200);
  });
});

describe('per-address request limit', () => {
  it('counts searches against the address’s API limit', async () => {
    const from = { remoteAddress: '203.0.113.90' };
    for (let i = 0; i < 600; i++) await t.app.inject({ url: '/api/health', ...from });
    const limited = await t.app.inject({
      url: '/api/search?q=bob',
      headers: t.adminSession.headers,
      ...from,
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
  });
});
