import { SITE_NAME_IN_DNS, SITE_NAME_RESERVED } from '@atrium/contracts/signup';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsClient, type DnsClient } from '../../src/lib/dns.ts';
import { queueSiteRecord, SITE_RECORD_JOB } from '../../src/modules/dns-updates/dns-updates.service.ts';
import { deleteOrganization } from '../../src/modules/organizations/delete-organization.ts';
import { fieldsOf, SignupVisitor } from '../signup/signup-visitor.ts';
import { TestBindServer } from '../support/bind-server.ts';
import { createSiteOrganization } from './site-organization.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Issue 30, item 1: site records never touch a name the operator has in the zone.
const ZONE = 'example.test';
const PROXY = `proxy.${ZONE}`;

let bind: TestBindServer;
let dns: DnsClient;
let server: TestApp;

beforeAll(async () => {
  // The operator's own names: the proxy every site points at, and an intranet host with a TXT.
  bind = await TestBindServer.start(ZONE, [
    'proxy IN A 192.0.2.80',
    'intranet IN A 10.0.0.5',
    'intranet IN TXT "owner=it-department"',
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

function jobsOf(siteName: string) {
  return server.db
    .selectFrom('jobs')
    .select(['status', 'attempts', 'last_error'])
    .where('kind', '=', SITE_RECORD_JOB)
    .where(sql<string>`payload->>'siteName'`, '=', siteName)
    .orderBy('created_at')
    .execute();
}

function dnsActivityOf(organizationId: string) {
  return server.db
    .selectFrom('activity_log')
    .select(['action', 'target_label', 'details'])
    .where('organization_id', '=', organizationId)
    .where('action', 'like', 'dns.%')
    .execute();
}

async function availability(siteName: string) {
  const response = await server.app.inject({ url: `/api/signup/site-availability?siteName=${siteName}` });
  return response.json() as { available: boolean; message: string | null };
}

/** The operator's records, as the zone file has them. */
async function expectOperatorRecordsKept() {
  expect(await dns.a(PROXY)).toEqual({ status: 'found', records: ['192.0.2.80'] });
  expect(await dns.cname(PROXY)).toEqual({ status: 'none' });
  expect(await dns.a(`intranet.${ZONE}`)).toEqual({ status: 'found', records: ['10.0.0.5'] });
  expect(await dns.txt(`intranet.${ZONE}`)).toEqual({ status: 'found', records: ['owner=it-department'] });
  expect(await dns.cname(`intranet.${ZONE}`)).toEqual({ status: 'none' });
}

describe('sign-up refuses a site name the operator has (against BIND)', () => {
  it('refuses `proxy`, the name of DNS_UPDATE_TARGET, and the operator’s proxy A record stays', async () => {
    const visitor = new SignupVisitor(server.app);
    const response = await visitor.site('Proxy Ltd', 'proxy');

    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toEqual({ siteName: SITE_NAME_RESERVED });
    expect(visitor.cookie).toBeUndefined();
    expect(await availability('proxy')).toMatchObject({ available: false, message: SITE_NAME_RESERVED });
    expect(await jobsOf('proxy')).toEqual([]);
    await expectOperatorRecordsKept();
  });

  it('refuses a name the zone already has (`intranet`: A and TXT) with a field message', async () => {
    const visitor = new SignupVisitor(server.app);
    const response = await visitor.site('Intranet Ltd', 'intranet');

    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toEqual({ siteName: SITE_NAME_IN_DNS });
    expect(await availability('intranet')).toMatchObject({ available: false, message: SITE_NAME_IN_DNS });
    await expectOperatorRecordsKept();
  });

  it('refuses the names of PUBLIC_URL’s host and MAIL_HOST as reserved', async () => {
    for (const siteName of ['portal', 'post']) {
      const response = await new SignupVisitor(server.app).site('Some Ltd', siteName);
      expect(response.statusCode).toBe(400);
      expect(fieldsOf(response)).toEqual({ siteName: SITE_NAME_RESERVED });
    }
  });

  it('accepts a name the zone does not have', async () => {
    expect(await availability('newco')).toMatchObject({ available: true, message: null });
    expect((await new SignupVisitor(server.app).site('Newco', 'newco')).statusCode).toBe(200);
  });

  it('lets sign-up go on when the DNS server cannot be asked (the update’s prerequisite still guards)', async () => {
    await bind.stop();
    try {
      expect((await new SignupVisitor(server.app).site('Later Ltd', 'later')).statusCode).toBe(200);
    } finally {
      await bind.resume();
    }
  });
});

describe('site record jobs leave the operator’s names alone (against BIND)', () => {
  it('does not replace `proxy A` when an organisation `proxy` gets past the sign-up check: fails at once, with the reason', async () => {
    // As if the organisation had been created before the operator added the record (a race).
    const created = await createSiteOrganization(server, 'proxy');
    await server.app.jobs.drain();

    const [job] = await jobsOf('proxy');
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(job!.last_error).toBe(
      `${PROXY} already exists in the zone ${ZONE} with records Atrium did not add (A 192.0.2.80): ` +
        "Atrium leaves them as they are, so the organisation's site record was not published",
    );
    expect(await dnsActivityOf(created.organizationId)).toEqual([
      { action: 'dns.record_failed', target_label: PROXY, details: { error: job!.last_error } },
    ]);
    await expectOperatorRecordsKept();
  });

  it('leaves `intranet` (A and TXT) untouched and does not retry', async () => {
    await createSiteOrganization(server, 'intranet');
    await server.app.jobs.drain();

    const [job] = await jobsOf('intranet');
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(job!.last_error).toContain('(A 10.0.0.5, TXT "owner=it-department")');
    await expectOperatorRecordsKept();
  });

  it('publishes a free name, and a second run finds its own record there and is done', async () => {
    await createSiteOrganization(server, 'acme');
    await server.app.jobs.drain();
    await server.db.transaction().execute((trx) => queueSiteRecord(trx, server.config, 'acme'));
    await server.app.jobs.drain();

    expect(await jobsOf('acme')).toEqual([
      { status: 'done', attempts: 1, last_error: null },
      { status: 'done', attempts: 1, last_error: null },
    ]);
    expect(await dns.cname(`acme.${ZONE}`)).toEqual({ status: 'found', records: [PROXY] });
  });

  it('deleting an organisation leaves a record the operator put at its name since', async () => {
    await createSiteOrganization(server, 'globex');
    await server.app.jobs.drain();
    expect(await dns.cname(`globex.${ZONE}`)).toEqual({ status: 'found', records: [PROXY] });
    bind.update([`update delete globex.${ZONE}. CNAME`, `update add globex.${ZONE}. 300 A 198.51.100.7`]);

    await deleteOrganization(server.db, server.config, 'globex');
    await server.app.jobs.drain();

    expect((await jobsOf('globex')).map((j) => j.status)).toEqual(['done', 'done']);
    expect(await dns.a(`globex.${ZONE}`)).toEqual({ status: 'found', records: ['198.51.100.7'] });
  });

  it('deleting an organisation leaves a CNAME the operator pointed elsewhere, and removes Atrium’s own', async () => {
    await createSiteOrganization(server, 'initech');
    await createSiteOrganization(server, 'hooli');
    await server.app.jobs.drain();
    bind.update([
      `update delete initech.${ZONE}. CNAME`,
      `update add initech.${ZONE}. 300 CNAME intranet.${ZONE}.`,
    ]);

    await deleteOrganization(server.db, server.config, 'initech');
    await deleteOrganization(server.db, server.config, 'hooli');
    await server.app.jobs.drain();

    expect(await dns.cname(`initech.${ZONE}`)).toEqual({ status: 'found', records: [`intranet.${ZONE}`] });
    expect(await dns.nameExists(`hooli.${ZONE}`)).toEqual({ status: 'none' });
    expect((await jobsOf('hooli')).map((j) => j.status)).toEqual(['done', 'done']);
  });
});
