import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDnsClient, type DnsClient } from '../../src/lib/dns.ts';
import { SITE_RECORD_JOB } from '../../src/modules/dns-updates/dns-updates.service.ts';
import { deleteOrganization } from '../../src/modules/organizations/delete-organization.ts';
import { TestBindServer } from '../support/bind-server.ts';
import { createSiteOrganization } from './site-organization.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

const ZONE = 'example.test';

let bind: TestBindServer;
let dns: DnsClient;
let server: TestApp | undefined;

beforeAll(async () => {
  bind = await TestBindServer.start(ZONE);
  dns = createDnsClient({ dnsServers: [`127.0.0.1:${bind.port}`], dnsTimeoutMs: 2000 });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
});

afterAll(async () => {
  await bind?.close();
});

function startAtrium(env: Record<string, string>): Promise<TestApp> {
  return createTestApp({
    env: { PUBLIC_URL: `https://console.${ZONE}`, SITE_BASE_DOMAIN: ZONE, ...bind.env(), ...env },
  });
}

function siteJobs(app: TestApp) {
  return app.db
    .selectFrom('jobs')
    .select(['status', 'attempts', 'last_error'])
    .where('kind', '=', SITE_RECORD_JOB)
    .orderBy('created_at')
    .execute();
}

function activityOf(app: TestApp, organizationId: string) {
  return app.db
    .selectFrom('activity_log')
    .select(['action', 'actor_label', 'target_label', 'details'])
    .where('organization_id', '=', organizationId)
    .where('action', 'like', 'dns.%')
    .execute();
}

/** Lets the queue's backoff elapse, as time passing would, and runs what is due. */
async function retryNow(app: TestApp): Promise<void> {
  await app.db
    .updateTable('jobs')
    .set({ run_at: sql`now()` })
    .where('status', '=', 'queued')
    .execute();
  await app.app.jobs.drain();
}

describe('site records in the operator’s zone (RFC 2136 with TSIG, against BIND)', () => {
  it('publishes a CNAME when an organisation is created and removes it when it is deleted', async () => {
    server = await startAtrium({ DNS_UPDATE_TARGET: 'edge.example.net' });
    const created = await createSiteOrganization(server, 'acme');
    await server.app.jobs.drain();

    expect(await dns.cname(`acme.${ZONE}`)).toEqual({ status: 'found', records: ['edge.example.net'] });
    expect(await siteJobs(server)).toEqual([{ status: 'done', attempts: 1, last_error: null }]);
    expect(await activityOf(server, created.organizationId)).toEqual([
      {
        action: 'dns.record_published',
        actor_label: 'System',
        target_label: `acme.${ZONE}`,
        details: { records: [{ type: 'CNAME', value: 'edge.example.net' }] },
      },
    ]);

    expect(await deleteOrganization(server.db, server.config, 'acme')).toMatchObject({ name: 'Org acme' });
    await server.app.jobs.drain();

    expect(await dns.cname(`acme.${ZONE}`)).toEqual({ status: 'none' });
    expect((await siteJobs(server)).map((j) => j.status)).toEqual(['done', 'done']);
  });

  it('publishes A and AAAA records when the target is addresses', async () => {
    server = await startAtrium({ DNS_UPDATE_TARGET: '192.0.2.10, 2001:db8::10' });
    await createSiteOrganization(server, 'globex');
    await server.app.jobs.drain();

    expect(await dns.a(`globex.${ZONE}`)).toEqual({ status: 'found', records: ['192.0.2.10'] });
    expect(await dns.aaaa(`globex.${ZONE}`)).toEqual({ status: 'found', records: ['2001:db8::10'] });
    expect(await dns.cname(`globex.${ZONE}`)).toEqual({ status: 'none' });
  });

  it('reports a key the server refuses, in the job and in the activity log, without retrying', async () => {
    const wrongSecret = Buffer.alloc(32, 7).toString('base64');
    server = await startAtrium({
      DNS_UPDATE_TARGET: 'edge.example.net',
      ...bind.env({ secret: wrongSecret }),
    });
    const created = await createSiteOrganization(server, 'initech');
    await server.app.jobs.drain();

    const [job] = await siteJobs(server);
    expect(job).toMatchObject({ status: 'failed', attempts: 1 });
    expect(job!.last_error).toMatch(/refused the update of initech\.example\.test \((NOTAUTH|BADSIG)\)/);
    expect(job!.last_error).toContain('TSIG key "atrium-test-key"');
    expect(job!.last_error).toContain('DNS_UPDATE_TSIG');
    const [entry] = await activityOf(server, created.organizationId);
    expect(entry).toMatchObject({ action: 'dns.record_failed', target_label: `initech.${ZONE}` });
    expect((entry!.details as { error: string }).error).toBe(job!.last_error);
    expect(await dns.cname(`initech.${ZONE}`)).toEqual({ status: 'none' });
  });

  it('keeps the job while the server is down and publishes the record once it is back', async () => {
    server = await startAtrium({ DNS_UPDATE_TARGET: 'edge.example.net' });
    await bind.stop();
    try {
      await createSiteOrganization(server, 'umbrella');
      await server.app.jobs.drain();
      const [job] = await siteJobs(server);
      expect(job).toMatchObject({ status: 'queued', attempts: 1 });
      expect(job!.last_error).toContain(
        `The update of umbrella.${ZONE} at the DNS server 127.0.0.1:${bind.port} failed`,
      );
    } finally {
      await bind.resume();
    }
    await retryNow(server);

    expect(await siteJobs(server)).toEqual([{ status: 'done', attempts: 2, last_error: null }]);
    expect(await dns.cname(`umbrella.${ZONE}`)).toEqual({ status: 'found', records: ['edge.example.net'] });
  });

  it('records in the activity log a record that could not be published by the last try', async () => {
    server = await startAtrium({ DNS_UPDATE_TARGET: 'edge.example.net' });
    await bind.stop();
    try {
      const created = await createSiteOrganization(server, 'wonka');
      await server.app.jobs.drain();
      expect(await activityOf(server, created.organizationId)).toEqual([]);
      // The next try is the last, as if the server had stayed down through every earlier one.
      await server.db
        .updateTable('jobs')
        .set({ max_attempts: 2 })
        .where('kind', '=', SITE_RECORD_JOB)
        .execute();
      await retryNow(server);

      const [job] = await siteJobs(server);
      expect(job).toMatchObject({ status: 'failed', attempts: 2 });
      const [entry] = await activityOf(server, created.organizationId);
      expect(entry).toMatchObject({ action: 'dns.record_failed', target_label: `wonka.${ZONE}` });
      expect((entry!.details as { error: string }).error).toContain(
        `at the DNS server 127.0.0.1:${bind.port} failed`,
      );
    } finally {
      await bind.resume();
    }
  });

  it('queues nothing without DNS_UPDATE_SERVER: the records are only shown to publish', async () => {
    server = await createTestApp({ env: { SITE_BASE_DOMAIN: ZONE } });
    await createSiteOrganization(server, 'hooli');
    await deleteOrganization(server.db, server.config, 'hooli');

    expect(await siteJobs(server)).toEqual([]);
  });
});
