import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestDnsServer } from '../support/dns-server.ts';
import { createOrganizationWithAdmin, signInAs, type TestSession } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, addVerifiedDomain } from './domain-helpers.ts';

let t: TestApp;
let dns: TestDnsServer;
let adminA: TestSession;
let adminB: TestSession;
let pendingOfB: string;
let verifiedOfB: string;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  t = await createTestApp({ env: { DNS_SERVERS: dns.address } });
  adminA = await signInAs(t.db, (await createOrganizationWithAdmin(t.db)).admin);
  adminB = await signInAs(t.db, (await createOrganizationWithAdmin(t.db)).admin);
  pendingOfB = (await addDomain(t.app, adminB, 'pending-b.example')).id;
  verifiedOfB = (await addVerifiedDomain(t.app, adminB, dns, 'verified-b.example')).id;
  await addDomain(t.app, adminA, 'mine-a.example');
});
afterAll(async () => {
  await t.close();
  await dns.close();
});

const endpoints = (id: string) =>
  [
    ['GET', `/api/domains/${id}`],
    ['POST', `/api/domains/${id}/verify`],
    ['POST', `/api/domains/${id}/primary`],
    ['GET', `/api/domains/${id}/dns-records`],
    ['GET', `/api/domains/${id}/deletion-check`],
    ['DELETE', `/api/domains/${id}`],
  ] as const;

describe("another organisation's domains", () => {
  it.each(['pending', 'verified'] as const)(
    'answer 404 Domain was not found on every endpoint (%s domain)',
    async (which) => {
      const id = which === 'pending' ? pendingOfB : verifiedOfB;
      for (const [method, url] of endpoints(id)) {
        const response = await t.app.inject({ method, url, headers: adminA.headers });
        expect([method, url, response.statusCode]).toEqual([method, url, 404]);
        expect(response.json()).toEqual({ error: { code: 'not_found', message: 'Domain was not found' } });
      }
    },
  );

  it('answer exactly like a domain that does not exist', async () => {
    for (const [method, url] of endpoints('00000000-0000-4000-8000-000000000000')) {
      const response = await t.app.inject({ method, url, headers: adminA.headers });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: 'Domain was not found' } });
    }
  });

  it('never appear in the list, and are left untouched', async () => {
    const list = await t.app.inject({ url: '/api/domains', headers: adminA.headers });
    expect(list.json().domains.map((d: { name: string }) => d.name)).toEqual(['mine-a.example']);
    const own = await t.app.inject({ url: '/api/domains', headers: adminB.headers });
    expect(own.json().domains.map((d: { name: string }) => d.name)).toEqual([
      'pending-b.example',
      'verified-b.example',
    ]);
  });
});
