import { SITE_NAME_IN_DNS, SITE_NAME_RESERVED } from '@atrium/contracts/signup';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsClient, type DnsClient } from '../../src/lib/dns.ts';
import { SITE_RECORD_JOB } from '../../src/modules/dns-updates/dns-updates.service.ts';
import { fieldsOf, SignupVisitor } from '../signup/signup-visitor.ts';
import { TestBindServer } from '../support/bind-server.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { createSiteOrganization } from './site-organization.ts';

// Issue 42, item 9: with the README's `*.<zone>` record in the zone, a new site name was refused
// as "already in use on this domain". A name only the wildcard answers for is free; the
// operator's own names still are not.
const ZONE = 'example.test';
const PROXY = `proxy.${ZONE}`;

let bind: TestBindServer;
let dns: DnsClient;
let server: TestApp;

beforeAll(async () => {
  bind = await TestBindServer.start(ZONE, [
    `* IN CNAME ${PROXY}.`,
    'proxy IN A 192.0.2.80',
    // The operator's host, its CNAME to the proxy too (what the wildcard would answer), and one
    // with a wildcard of its own below it.
    'intranet IN A 10.0.0.5',
    `wiki IN CNAME ${PROXY}.`,
    `*.branch IN CNAME ${PROXY}.`,
    // `team` exists only as the parent of `vpn.team`: the wildcard does not answer for it.
    'vpn.team IN A 10.0.0.9',
  ]);
  dns = createDnsClient({ dnsServers: [`127.0.0.1:${bind.port}`], dnsTimeoutMs: 2000 });
  server = await createTestApp({
    env: {
      PUBLIC_URL: `https://portal.${ZONE}`,
      SITE_BASE_DOMAIN: ZONE,
      MAIL_HOST: `post.${ZONE}`,
      DNS_UPDATE_TARGET: PROXY,
      ...bind.env(),
    },
  });
});

afterAll(async () => {
  await server?.close();
  await bind?.close();
});

async function availability(siteName: string) {
  const response = await server.app.inject({ url: `/api/signup/site-availability?siteName=${siteName}` });
  expect(response.statusCode).toBe(200);
  return response.json() as { available: boolean; message: string | null; siteUrl: string | null };
}

async function expectRefusedInDns(siteName: string) {
  expect(await availability(siteName)).toMatchObject({ available: false, message: SITE_NAME_IN_DNS });
  const response = await new SignupVisitor(server.app).site('Some Ltd', siteName);
  expect(response.statusCode).toBe(400);
  expect(fieldsOf(response)).toEqual({ siteName: SITE_NAME_IN_DNS });
}

describe('sign-up with a wildcard in the zone (against BIND)', () => {
  it('offers a name only the wildcard answers for, and takes it at the site stage', async () => {
    // The wildcard does answer for it: before the fix this made every name "in use".
    expect(await dns.cname(`newco.${ZONE}`)).toEqual({ status: 'found', records: [PROXY] });

    expect(await availability('newco')).toEqual({
      siteName: 'newco',
      available: true,
      message: null,
      siteUrl: `https://newco.${ZONE}`,
    });
    const visitor = new SignupVisitor(server.app);
    const response = await visitor.site('Newco', 'newco');
    expect(response.statusCode).toBe(200);
    expect(visitor.cookie).toBeDefined();
  });

  it('still refuses a name the operator has: its own A record', async () => {
    await expectRefusedInDns('intranet');
  });

  it('still refuses a name the operator has, even when its record is what the wildcard would answer', async () => {
    await expectRefusedInDns('wiki');
  });

  it('still refuses a name that exists only as the parent of another, or has a wildcard of its own', async () => {
    await expectRefusedInDns('team');
    await expectRefusedInDns('branch');
  });

  it('still refuses the names of the deployment’s own hosts as reserved', async () => {
    for (const siteName of ['proxy', 'portal', 'post']) {
      expect(await availability(siteName)).toMatchObject({ available: false, message: SITE_NAME_RESERVED });
    }
  });

  it('publishes the new site’s own record over the wildcard, and then the name is taken', async () => {
    await createSiteOrganization(server, 'acme');
    await server.app.jobs.drain();

    const jobs = await server.db
      .selectFrom('jobs')
      .select(['status', 'last_error'])
      .where('kind', '=', SITE_RECORD_JOB)
      .where(sql<string>`payload->>'siteName'`, '=', 'acme')
      .execute();
    expect(jobs).toEqual([{ status: 'done', last_error: null }]);
    expect(await dns.cname(`acme.${ZONE}`)).toEqual({ status: 'found', records: [PROXY] });
    expect(await availability('acme')).toMatchObject({
      available: false,
      message: 'This site name is already taken. Choose another one',
    });
  });

  it('with an A-record wildcard instead, a new name is free and the operator’s host is not', async () => {
    bind.update([`update delete *.${ZONE}. CNAME`, `update add *.${ZONE}. 300 A 192.0.2.80`]);
    expect(await dns.a(`globex.${ZONE}`)).toEqual({ status: 'found', records: ['192.0.2.80'] });

    expect(await availability('globex')).toMatchObject({ available: true, message: null });
    expect((await new SignupVisitor(server.app).site('Globex', 'globex')).statusCode).toBe(200);
    await expectRefusedInDns('intranet');
    await expectRefusedInDns('team');
  });

  it('without the wildcard, a name with an A record of its own is in use and others are free', async () => {
    bind.update([`update delete *.${ZONE}. A`]);
    expect(await dns.nameExists(`initech.${ZONE}`)).toEqual({ status: 'none' });

    expect(await availability('initech')).toMatchObject({ available: true, message: null });
    await expectRefusedInDns('intranet');
  });
});
