import { beforeAll, describe, expect, it } from 'vitest';
import { useAdminWorldWithDns } from '../support/admin-world.ts';
import { createOrganizationWithAdmin, signInAs, type TestSession } from '../support/fixtures.ts';
import { addDomain, addVerifiedDomain } from './domain-helpers.ts';

// Organisation A's admin is the world's.
const t = useAdminWorldWithDns();
let adminB: TestSession;
let pendingOfB: string;
let verifiedOfB: string;

beforeAll(async () => {
  adminB = await signInAs(t.db, (await createOrganizationWithAdmin(t.db)).admin);
  pendingOfB = (await addDomain(t.app, adminB, 'pending-b.example')).id;
  verifiedOfB = (await addVerifiedDomain(t.app, adminB, t.dns, 'verified-b.example')).id;
  await addDomain(t.app, t.adminSession, 'mine-a.example');
});

const endpoints = (id: string) =>
  [
    ['GET', `/api/domains/${id}`],
    ['POST', `/api/domains/${id}/verify`],
    ['POST', `/api/domains/${id}/primary`],
    ['GET', `/api/domains/${id}/dns-records`],
    ['GET', `/api/domains/${id}/zone-file`],
    ['GET', `/api/domains/${id}/deletion-check`],
    ['DELETE', `/api/domains/${id}`],
  ] as const;

describe("another organisation's domains", () => {
  it.each(['pending', 'verified'] as const)(
    'answer 404 Domain was not found on every endpoint (%s domain)',
    async (which) => {
      const id = which === 'pending' ? pendingOfB : verifiedOfB;
      for (const [method, url] of endpoints(id)) {
        const response = await t.app.inject({ method, url, headers: t.adminSession.headers });
        expect([method, url, response.statusCode]).toEqual([method, url, 404]);
        expect(response.json()).toEqual({ error: { code: 'not_found', message: 'Domain was not found' } });
      }
    },
  );

  it('answer exactly like a domain that does not exist', async () => {
    for (const [method, url] of endpoints('00000000-0000-4000-8000-000000000000')) {
      const response = await t.app.inject({ method, url, headers: t.adminSession.headers });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: 'Domain was not found' } });
    }
  });

  it('never appear in the list, and are left untouched', async () => {
    const list = await t.app.inject({ url: '/api/domains', headers: t.adminSession.headers });
    expect(list.json().domains.map((d: { name: string }) => d.name)).toEqual(['mine-a.example']);
    const own = await t.app.inject({ url: '/api/domains', headers: adminB.headers });
    expect(own.json().domains.map((d: { name: string }) => d.name)).toEqual([
      'pending-b.example',
      'verified-b.example',
    ]);
  });
});
