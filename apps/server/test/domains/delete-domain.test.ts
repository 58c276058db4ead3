import type { DeletionCheck, DomainList } from '@atrium/contracts/domains';
import { describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, createUser, signInAs } from '../support/fixtures.ts';
import { addDomain, addVerifiedDomain } from './domain-helpers.ts';
import { useAdminWorldWithDns } from '../support/admin-world.ts';

const t = useAdminWorldWithDns();

async function deletionCheck(id: string): Promise<DeletionCheck> {
  const response = await t.app.inject({
    url: `/api/domains/${id}/deletion-check`,
    headers: t.adminSession.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<DeletionCheck>();
}

const erase = (id: string) =>
  t.app.inject({ method: 'DELETE', url: `/api/domains/${id}`, headers: t.adminSession.headers });

async function names(): Promise<string[]> {
  return (await t.app.inject({ url: '/api/domains', headers: t.adminSession.headers }))
    .json<DomainList>()
    .domains.map((d) => d.name);
}

describe('deleting a domain', () => {
  it('is refused while users’ addresses use it, naming them', async () => {
    const domain = await addVerifiedDomain(t.app, t.adminSession, t.dns, 'staff.example');
    const grace = await createUser(t.db, t.org.id, {
      email: 'grace@staff.example',
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    await createUser(t.db, t.org.id, { email: 'alan@staff.example', firstName: 'Alan', lastName: 'Turing' });
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
    const primary = await addVerifiedDomain(t.app, session, t.dns, 'primary.example');
    const second = await addVerifiedDomain(t.app, session, t.dns, 'second.example');
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
    const domain = await addDomain(t.app, t.adminSession, 'unused.example');
    expect(await deletionCheck(domain.id)).toEqual({ allowed: true, reasons: [], users: [], userCount: 0 });
    expect((await erase(domain.id)).statusCode).toBe(204);
    expect(await names()).not.toContain('unused.example');
    expect(await t.db.selectFrom('domains').select('id').where('id', '=', domain.id).execute()).toEqual([]);
    const activity = await t.db
      .selectFrom('activity_log')
      .select(['action', 'actor_label', 'target_label'])
      .where('organization_id', '=', t.org.id)
      .where('action', '=', 'domain.deleted')
      .execute();
    expect(activity).toEqual([
      { action: 'domain.deleted', actor_label: 'Ada Admin', target_label: 'unused.example' },
    ]);
    expect((await erase(domain.id)).statusCode).toBe(404);
  });
});
