import type { CatchAllsResponse, MailAlias, MailAliasesPage } from '@atrium/contracts/mail-addresses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';

// Mail Settings' addresses through the API: aliases, group addresses, catch-alls, each unique
// across the deployment with a clash named in words. Delivery itself: addresses-delivery.test.ts.

let t: TestApp;
let org: Awaited<ReturnType<typeof createOrganizationWithAdmin>>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
let admin: (method: Method, url: string, payload?: unknown) => ReturnType<ReturnType<typeof as>['get']>;
/** `as(…)` as one function of the method. */
const caller = (api: ReturnType<typeof as>) => (method: Method, url: string, payload?: unknown) =>
  method === 'GET'
    ? api.get(url)
    : method === 'DELETE'
      ? api.delete(url)
      : method === 'PUT'
        ? api.put(url, payload)
        : api.post(url, payload);
let member: TestSession;
const DOMAIN = 'addresses.example.com';

beforeAll(async () => {
  t = await createTestApp();
  org = await createOrganizationWithAdmin(t.db);
  await addDomain(t.db, org.id, DOMAIN);
  await addDomain(t.db, org.id, 'pending-addresses.example.com', 'pending');
  admin = caller(as(t, await signInAs(t.db, org.admin)));
  member = await signInAs(t.db, await createUser(t.db, org.id));
});
afterAll(async () => {
  await t?.close();
});

const userAt = (local: string, firstName = 'Ann', lastName = 'Lee') =>
  createUser(t.db, org.id, { email: `${local}@${DOMAIN}`, firstName, lastName });

async function newGroup(name: string, userIds: string[] = []) {
  const created = await admin('POST', '/api/groups', { name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = (created.body as { id: string }).id;
  if (userIds.length > 0)
    expect((await admin('POST', `/api/groups/${id}/members`, { userIds })).status).toBe(200);
  return id;
}

describe('aliases', () => {
  it('gives a user an alias on a verified domain, lists it, finds it by its start and removes it', async () => {
    const ann = await userAt('ann');
    const added = await admin('POST', '/api/mail/aliases', {
      userId: ann.id,
      localPart: 'Sales',
      domain: DOMAIN,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const alias = added.body as MailAlias;
    expect(alias).toMatchObject({
      address: `sales@${DOMAIN}`,
      user: { id: ann.id, name: 'Ann Lee', email: ann.email },
    });

    const found = (await admin('GET', '/api/mail/aliases?q=SAL')).body as MailAliasesPage;
    expect(found.aliases.map((a) => a.address)).toEqual([`sales@${DOMAIN}`]);
    expect(((await admin('GET', '/api/mail/aliases?q=zzz')).body as MailAliasesPage).aliases).toEqual([]);

    expect((await admin('DELETE', `/api/mail/aliases/${alias.id}`)).status).toBe(200);
    expect((await admin('DELETE', `/api/mail/aliases/${alias.id}`)).status).toBe(404);
    const activity = await admin('GET', '/api/activity?kind=mail');
    const actions = JSON.stringify(activity.body);
    expect(actions).toContain('mail.alias_added');
    expect(actions).toContain('mail.alias_removed');
    expect(actions).toContain(`sales@${DOMAIN}`);
  });

  it('pages through aliases in address order, 50 at a time', async () => {
    const a = await userAt('pager-a');
    const b = await userAt('pager-b');
    const wanted: string[] = [];
    for (let i = 0; i < 55; i++) {
      const localPart = `page${String(i).padStart(2, '0')}`;
      wanted.push(`${localPart}@${DOMAIN}`);
      const added = await admin('POST', '/api/mail/aliases', {
        userId: i < 28 ? a.id : b.id,
        localPart,
        domain: DOMAIN,
      });
      expect(added.status).toBe(201);
    }
    const first = (await admin('GET', '/api/mail/aliases?q=page')).body as MailAliasesPage;
    expect(first.aliases).toHaveLength(50);
    expect(first.nextCursor).not.toBeNull();
    const second = (await admin('GET', `/api/mail/aliases?q=page&cursor=${first.nextCursor}`))
      .body as MailAliasesPage;
    expect(second.nextCursor).toBeNull();
    expect([...first.aliases, ...second.aliases].map((x) => x.address)).toEqual(wanted);
    expect((await admin('GET', '/api/mail/aliases?cursor=bm9wZQ')).status).toBe(400);
  });

  it('names the clash: a user’s address, another alias, a group’s address, another organisation’s', async () => {
    const bob = await userAt('bob', 'Bob', 'Stone');
    const cara = await userAt('cara', 'Cara', 'Wu');
    await admin('POST', '/api/mail/aliases', { userId: bob.id, localPart: 'help', domain: DOMAIN });
    const team = await newGroup('Support team');
    expect(
      (await admin('PUT', `/api/mail/group-addresses/${team}`, { localPart: 'support', domain: DOMAIN }))
        .status,
    ).toBe(200);
    const other = await createOrganizationWithAdmin(t.db);
    await createUser(t.db, other.id, { email: `zed@${DOMAIN}` });

    const clash = async (localPart: string) => {
      const response = await admin('POST', '/api/mail/aliases', {
        userId: cara.id,
        localPart,
        domain: DOMAIN,
      });
      expect(response.status).toBe(400);
      return (response.body as { error: { fields: Record<string, string> } }).error.fields['localPart'];
    };
    expect(await clash('bob')).toBe(`bob@${DOMAIN} is already the address of Bob Stone`);
    expect(await clash('HELP')).toBe(`help@${DOMAIN} is already an alias of Bob Stone`);
    expect(await clash('support')).toBe(`support@${DOMAIN} is already the address of the group Support team`);
    expect(await clash('zed')).toBe(`zed@${DOMAIN} is already in use in another organisation`);
    const group = await admin('PUT', `/api/mail/group-addresses/${team}`, {
      localPart: 'bob',
      domain: DOMAIN,
    });
    expect((group.body as { error: { fields: Record<string, string> } }).error.fields['localPart']).toBe(
      `bob@${DOMAIN} is already the address of Bob Stone`,
    );

    // The other way round: a new user cannot take an alias's address either.
    const user = await admin('POST', '/api/users', {
      firstName: 'Hal',
      lastName: 'Help',
      localPart: 'help',
      domain: DOMAIN,
      groupIds: [],
      credential: 'invitation',
    });
    expect(user.status).toBe(400);
    expect(JSON.stringify(user.body)).toContain('already in use');
  });

  it('lets only one of two requests racing for an address have it', async () => {
    const dee = await userAt('dee');
    const eve = await userAt('eve');
    const [one, two] = await Promise.all(
      [dee, eve].map((u) =>
        admin('POST', '/api/mail/aliases', { userId: u.id, localPart: 'race', domain: DOMAIN }),
      ),
    );
    expect([one!.status, two!.status].sort()).toEqual([201, 400]);
    const loser = [one!, two!].find((r) => r.status === 400)!;
    expect(JSON.stringify(loser.body)).toContain(`race@${DOMAIN} is already an alias of`);
  });

  it('refuses a domain that is not verified, an unknown user, the 31st alias, and non-admins', async () => {
    const fay = await userAt('fay');
    const pending = await admin('POST', '/api/mail/aliases', {
      userId: fay.id,
      localPart: 'x',
      domain: 'pending-addresses.example.com',
    });
    expect(pending.status).toBe(400);
    expect(JSON.stringify(pending.body)).toContain('verified domains');
    const stranger = await createUser(t.db, (await createOrganizationWithAdmin(t.db)).id);
    expect(
      (await admin('POST', '/api/mail/aliases', { userId: stranger.id, localPart: 'y', domain: DOMAIN }))
        .status,
    ).toBe(404);
    for (let i = 0; i < 30; i++) {
      expect(
        (await admin('POST', '/api/mail/aliases', { userId: fay.id, localPart: `fay${i}`, domain: DOMAIN }))
          .status,
      ).toBe(201);
    }
    const over = await admin('POST', '/api/mail/aliases', {
      userId: fay.id,
      localPart: 'fay30',
      domain: DOMAIN,
    });
    expect(over.status).toBe(409);
    expect(JSON.stringify(over.body)).toContain('30 aliases');
    expect((await t.app.inject({ url: '/api/mail/aliases', headers: member.headers })).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/mail/aliases' })).statusCode).toBe(401);
  });
});

describe('group addresses and catch-alls', () => {
  it('sets, replaces and removes a group’s address, logged', async () => {
    const gus = await userAt('gus');
    const group = await newGroup('Sales desk', [gus.id]);
    const set = await admin('PUT', `/api/mail/group-addresses/${group}`, {
      localPart: 'desk',
      domain: DOMAIN,
    });
    expect(set.body).toEqual({
      group: { id: group, name: 'Sales desk', memberCount: 1 },
      address: `desk@${DOMAIN}`,
    });
    await admin('PUT', `/api/mail/group-addresses/${group}`, { localPart: 'desk2', domain: DOMAIN });
    const list = (await admin('GET', '/api/mail/group-addresses')).body as {
      groupAddresses: Array<{ address: string }>;
    };
    expect(list.groupAddresses.map((g) => g.address)).toContain(`desk2@${DOMAIN}`);
    expect(list.groupAddresses.map((g) => g.address)).not.toContain(`desk@${DOMAIN}`);
    expect((await admin('DELETE', `/api/mail/group-addresses/${group}`)).status).toBe(200);
    expect((await admin('DELETE', `/api/mail/group-addresses/${group}`)).status).toBe(404);
    const actions = JSON.stringify((await admin('GET', '/api/activity?kind=mail')).body);
    expect(actions).toContain('mail.group_address_set');
    expect(actions).toContain('mail.group_address_removed');
  });

  it('gives each verified domain its catch-all, to a user or a group', async () => {
    const hal = await userAt('hal', 'Hal', 'Ito');
    const domainId = (
      await t.db.selectFrom('domains').select('id').where('name', '=', DOMAIN).executeTakeFirstOrThrow()
    ).id;
    const before = (await admin('GET', '/api/mail/catch-alls')).body as CatchAllsResponse;
    expect(before.domains).toEqual([{ domainId, domain: DOMAIN, catchAll: null }]);
    const set = await admin('PUT', `/api/mail/catch-alls/${domainId}`, { type: 'user', id: hal.id });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((set.body as CatchAllsResponse).domains[0]!.catchAll).toEqual({
      type: 'user',
      id: hal.id,
      name: 'Hal Ito',
    });
    const group = await newGroup('Everyone else', [hal.id]);
    const toGroup = (await admin('PUT', `/api/mail/catch-alls/${domainId}`, { type: 'group', id: group }))
      .body as CatchAllsResponse;
    expect(toGroup.domains[0]!.catchAll).toEqual({ type: 'group', id: group, name: 'Everyone else' });
    const stranger = await createUser(t.db, (await createOrganizationWithAdmin(t.db)).id);
    expect(
      (await admin('PUT', `/api/mail/catch-alls/${domainId}`, { type: 'user', id: stranger.id })).status,
    ).toBe(400);
    expect((await admin('DELETE', `/api/mail/catch-alls/${domainId}`)).status).toBe(200);
    expect(
      ((await admin('GET', '/api/mail/catch-alls')).body as CatchAllsResponse).domains[0]!.catchAll,
    ).toBeNull();
    const actions = JSON.stringify((await admin('GET', '/api/activity?kind=mail')).body);
    expect(actions).toContain('mail.catch_all_set');
    expect(actions).toContain('mail.catch_all_removed');
    // Another organisation's admin sees none of it and cannot change it.
    const otherAdmin = caller(as(t, await signInAs(t.db, (await createOrganizationWithAdmin(t.db)).admin)));
    expect(((await otherAdmin('GET', '/api/mail/catch-alls')).body as CatchAllsResponse).domains).toEqual([]);
    expect(
      (await otherAdmin('PUT', `/api/mail/catch-alls/${domainId}`, { type: 'user', id: hal.id })).status,
    ).toBe(404);
  });
});
