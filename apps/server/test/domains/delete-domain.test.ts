import type { DeletionCheck, DomainList } from '@atrium/contracts/domains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestDnsServer } from '../support/dns-server.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
  type TestSession,
} from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, addVerifiedDomain } from './domain-helpers.ts';

let t: TestApp;
let dns: TestDnsServer;
let org: TestOrganization;
let admin: TestSession;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  t = await createTestApp({ env: { DNS_SERVERS: dns.address } });
  org = await createOrganizationWithAdmin(t.db);
  admin = await signInAs(t.db, org.admin);
});
afterAll(async () => {
  await t.close();
  await dns.close();
});

async function deletionCheck(id: string): Promise<DeletionCheck> {
  const response = await t.app.inject({ url: `/api/domains/${id}/deletion-check`, headers: admin.headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<DeletionCheck>();
}

const erase = (id: string) =>
  t.app.inject({ method: 'DELETE', url: `/api/domains/${id}`, headers: admin.headers });

async function names(): Promise<string[]> {
  return (await t.app.inject({ url: '/api/domains', headers: admin.headers }))
    .json<DomainList>()
    .domains.map((d) => d.name);
}

describe('deleting a domain', () => {
  it('is refused while users’ addresses use it, naming them', async () => {
    const domain = await addVerifiedDomain(t.app, admin, dns, 'staff.example');
    const grace = await createUser(t.db, org.id, {
      email: 'grace@staff.example',
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    await createUser(t.db, org.id, { email: 'alan@staff.example', firstName: 'Alan', lastName: 'Turing' });
    // Another organisation's user on a look-alike address does not count.
    const other = await createOrganizationWithAdmin(t.db);
    await createUser(t.db, other.id, { email: 'someone@staff.example.org' });

    const check = await deletionCheck(domain.id);
    expect(check).toEqual({
      allowed: false,
      reasons: [
        {
          code: 'users',
          message:
            'staff.example cannot be deleted while 2 users’ addresses use it: alan@staff.example, grace@staff.example. Change or remove those addresses first.',
        },
      ],
      users: [
        { id: expect.any(String), name: 'Alan Turing', email: 'alan@staff.example' },
        { id: grace.id, name: 'Grace Hopper', email: 'grace@staff.example' },
      ],
      userCount: 2,
    });
    const response = await erase(domain.id);
    expect(response.statusCode).toBe(409);
    expect(response.json().error).toEqual({ code: 'domain_in_use', message: check.reasons[0]!.message });
    expect(await names()).toContain('staff.example');
  });

  it('is refused for the primary domain while another domain is verified', async () => {
    const other = await createOrganizationWithAdmin(t.db);
    const session = await signInAs(t.db, other.admin);
    const primary = await addVerifiedDomain(t.app, session, dns, 'primary.example');
    const second = await addVerifiedDomain(t.app, session, dns, 'second.example');
    const check = await t.app.inject({
      url: `/api/domains/${primary.id}/deletion-check`,
      headers: session.headers,
    });
    expect(check.json()).toMatchObject({
      allowed: false,
      reasons: [
        {
          code: 'primary',
          message: 'primary.example is your primary domain. Make another verified domain primary first.',
        },
      ],
      users: [],
      userCount: 0,
    });
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/domains/${primary.id}`, headers: session.headers }))
        .statusCode,
    ).toBe(409);
    // The non-primary one goes; then the primary is the only verified domain and may go too.
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/domains/${second.id}`, headers: session.headers }))
        .statusCode,
    ).toBe(204);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/domains/${primary.id}`, headers: session.headers }))
        .statusCode,
    ).toBe(204);
  });

  it('erases an unused domain with its key and records who did it', async () => {
    const domain = await addDomain(t.app, admin, 'unused.example');
    expect(await deletionCheck(domain.id)).toEqual({ allowed: true, reasons: [], users: [], userCount: 0 });
    expect((await erase(domain.id)).statusCode).toBe(204);
    expect(await names()).not.toContain('unused.example');
    expect(await t.db.selectFrom('domains').select('id').where('id', '=', domain.id).execute()).toEqual([]);
    const activity = await t.db
      .selectFrom('activity_log')
      .select(['action', 'actor_label', 'target_label'])
      .where('organization_id', '=', org.id)
      .where('action', '=', 'domain.deleted')
      .execute();
    expect(activity).toEqual([
      { action: 'domain.deleted', actor_label: 'Ada Admin', target_label: 'unused.example' },
    ]);
    expect((await erase(domain.id)).statusCode).toBe(404);
  });
});
