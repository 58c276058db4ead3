import type { DnsMapping, DomainDetail, VerifyDomainResponse } from '@atrium/contracts/domains';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { TestSession } from '../support/fixtures.ts';
import type { TestDnsServer } from '../support/dns-server.ts';

/** Adds a domain through the API and returns what the admin sees. */
export async function addDomain(
  app: FastifyInstance,
  session: TestSession,
  name: string,
): Promise<DomainDetail> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/domains',
    headers: session.headers,
    payload: { name },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ domain: DomainDetail }>().domain;
}

export async function verify(
  app: FastifyInstance,
  session: TestSession,
  id: string,
): Promise<VerifyDomainResponse> {
  const response = await app.inject({
    method: 'POST',
    url: `/api/domains/${id}/verify`,
    headers: session.headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<VerifyDomainResponse>();
}

/** Adds a domain, publishes its TXT record on the loopback DNS server and verifies it. */
export async function addVerifiedDomain(
  app: FastifyInstance,
  session: TestSession,
  dns: TestDnsServer,
  name: string,
): Promise<DomainDetail> {
  const domain = await addDomain(app, session, name);
  dns.set(domain.name, { TXT: [domain.verificationRecord.value] });
  const { check, domain: verified } = await verify(app, session, domain.id);
  expect(check.outcome).toBe('verified');
  return verified;
}

/** The domain page's DNS mapping, as the admin's browser asks for it. */
export async function dnsMappingOf(
  app: FastifyInstance,
  session: TestSession,
  id: string,
): Promise<DnsMapping> {
  const response = await app.inject({ url: `/api/domains/${id}/dns-records`, headers: session.headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<DnsMapping>();
}
