import { insertVerifiedDomainWithKey } from './verified-domain.ts';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { operatorStatusSchema } from '@atrium/contracts/operator';
import { addVerifiedDomain } from '../domains/domain-helpers.ts';
import { createOrganizationWithAdmin, signInAs, type TestOrganization } from '../support/fixtures.ts';
import { installCatalogApp } from '../support/device-credentials.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

const TOKEN = 'operator-token-that-is-long-enough-0123456789';
const SECRET = 'test-secret-that-is-long-enough-0123456789';
const MAIL_HOST = 'mail.atrium.test';

let dns: TestDnsServer;
let t: TestApp;
let org: TestOrganization;
let publicKey: string;

/** What an organisation publishes for mail on its verified domain (its DNS mapping). */
function publishMailRecords(domain: string, key = publicKey) {
  dns.set(domain, { MX: [{ exchange: MAIL_HOST, priority: 10 }], TXT: [`v=spf1 include:${MAIL_HOST} ~all`] });
  dns.set(`atrium._domainkey.${domain}`, { TXT: [`v=DKIM1; k=rsa; p=${key}`] });
  dns.set(`_dmarc.${domain}`, { TXT: [`v=DMARC1; p=quarantine; rua=mailto:dmarc@${domain}`] });
  // The mail host's own address and SPF record, which the domain's include: reads.
  dns.set(MAIL_HOST, { A: ['127.0.0.1'], TXT: ['v=spf1 a -all'] });
}

const status = (authorization?: string) =>
  t.app.inject({
    url: '/api/operator/status',
    headers: authorization ? { authorization } : {},
  });

/**
 * The "Job queue" check once everything this server runs is done and 10 minutes have passed for
 * whatever is left queued (a job nobody runs would then be overdue).
 */
async function jobQueueTenMinutesLater() {
  await t.app.jobs.drain();
  await t.db
    .updateTable('jobs')
    .set({ run_at: sql<Date>`run_at - interval '10 minutes'` })
    .where('status', '=', 'queued')
    .execute();
  const response = await status(`Bearer ${TOKEN}`);
  const jobs = operatorStatusSchema.parse(response.json()).checks.find((c) => c.name === 'Job queue');
  return { response, jobs };
}

beforeAll(async () => {
  dns = await TestDnsServer.start();
  t = await createTestApp({
    env: {
      OPERATOR_TOKEN: TOKEN,
      ATRIUM_SECRET: SECRET,
      DNS_SERVERS: dns.address,
      MAIL_HOST,
      DNS_TIMEOUT_MS: '1000',
    },
  });
  org = await createOrganizationWithAdmin(t.db, { siteName: 'acme' });
  publicKey = await insertVerifiedDomainWithKey(t.db, org.id, 'acme.example', SECRET);
});

afterAll(async () => {
  await t.close();
  await dns.close();
});

beforeEach(async () => {
  dns.reset();
  publishMailRecords('acme.example');
  await t.db.deleteFrom('jobs').execute();
});

describe('GET /api/operator/status', () => {
  it('answers 401 without the token or with a wrong one, naming no check', async () => {
    for (const header of [undefined, 'Bearer wrong-token', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const response = await status(header);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: { code: 'unauthenticated', message: expect.any(String) } });
      expect(response.body).not.toContain('Database');
    }
  });

  it('answers 200 with every check passing, in the documented shape, and no secret in it', async () => {
    const response = await status(`Bearer ${TOKEN}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = operatorStatusSchema.parse(response.json());
    expect(body.ok).toBe(true);
    expect(body.checks.map((c) => c.name)).toEqual([
      'Database',
      'Migrations',
      'Job queue',
      'Domain acme.example',
      'Disk space for DATA_DIR',
    ]);
    expect(body.checks.every((c) => c.ok && c.fix === null)).toBe(true);
    expect(response.body).not.toContain(TOKEN);
    expect(response.body).not.toContain(SECRET);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('answers 503 with the fix when a job failed', async () => {
    await t.db
      .insertInto('jobs')
      .values({ kind: 'mail', status: 'failed', attempts: 5, last_error: 'SMTP refused: 550 no such user' })
      .execute();
    const response = await status(`Bearer ${TOKEN}`);
    expect(response.statusCode).toBe(503);
    const body = operatorStatusSchema.parse(response.json());
    expect(body.ok).toBe(false);
    const jobs = body.checks.find((c) => c.name === 'Job queue')!;
    expect(jobs).toMatchObject({ ok: false });
    expect(jobs.detail).toContain('1 failed, the latest a mail job');
    expect(jobs.detail).toContain('SMTP refused: 550 no such user');
    expect(jobs.fix).toContain('7 days');
  });

  it('stays 200 once a domain is verified on a server without MAIL_DKIM_DIR (no job nobody runs)', async () => {
    // This server has no MAIL_DKIM_DIR (`--no-mail`, `npm start`): no process writes DKIM tables.
    expect(t.config.mail.dkimDir).toBeUndefined();
    const session = await signInAs(t.db, org.admin);
    const domain = await addVerifiedDomain(t.app, session, dns, 'beta.example');
    try {
      const { dkim_public_key } = await t.db
        .selectFrom('domains')
        .select('dkim_public_key')
        .where('id', '=', domain.id)
        .executeTakeFirstOrThrow();
      publishMailRecords('beta.example', dkim_public_key);
      const { response, jobs } = await jobQueueTenMinutesLater();
      expect(response.statusCode, response.body).toBe(200);
      expect(jobs).toMatchObject({ ok: true, detail: 'no failed or overdue jobs' });
    } finally {
      await t.db.deleteFrom('domains').where('id', '=', domain.id).execute();
    }
  });

  it('stays 200 once a Mail app is installed on a server without WEBMAIL_CONFIG_DIR (no job nobody runs)', async () => {
    expect(t.config.webmail).toBeUndefined();
    await installCatalogApp(t, org.admin, 'mail');
    const queued = await t.db
      .selectFrom('jobs')
      .select('kind')
      .where('kind', '=', 'webmail.host-files')
      .execute();
    expect(queued).toEqual([]);
    const { jobs } = await jobQueueTenMinutesLater();
    expect(jobs).toMatchObject({ ok: true, detail: 'no failed or overdue jobs' });
  });

  it('answers 503 naming the record to publish when a domain lost its DKIM record', async () => {
    dns.remove('atrium._domainkey.acme.example');
    const response = await status(`Bearer ${TOKEN}`);
    expect(response.statusCode).toBe(503);
    const domain = operatorStatusSchema
      .parse(response.json())
      .checks.find((c) => c.name === 'Domain acme.example')!;
    expect(domain.ok).toBe(false);
    expect(domain.detail).toBe('DKIM missing at atrium._domainkey.acme.example');
    expect(domain.fix).toBe(`publish atrium._domainkey.acme.example. TXT "v=DKIM1; k=rsa; p=${publicKey}"`);
  });
});

describe('GET /api/operator/status without OPERATOR_TOKEN', () => {
  it('is not there: 404 as for any unknown route, whatever is sent', async () => {
    // The same database: only the setting differs (and a second migrated database takes seconds).
    const bare = await createTestApp({ database: t.database });
    try {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
        const response = await bare.app.inject({ url: '/api/operator/status', headers });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({
          error: { code: 'not_found', message: 'No route GET /api/operator/status' },
        });
      }
    } finally {
      await bare.close();
    }
  });
});
