import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsClient } from '../../src/lib/dns.ts';
import { createDomainRecheckJob } from '../../src/modules/domains/domain-recheck.job.ts';
import { SETUP_STEPS_LEFT } from '../../src/modules/notifications/notify.ts';
import { insertSetupRecord } from '../../src/modules/setup/setup.repository.ts';
import { addDomain, verify } from '../domains/domain-helpers.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
  type TestSession,
} from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let dns: TestDnsServer;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  t = await createTestApp({ env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '500' } });
});
afterAll(async () => {
  await t?.close();
  await dns?.close();
});

/**
 * A signed-up organisation, its wizard walked with "verify later" and finished: users skipped
 * with the admin alone, or done by a second admin.
 */
async function finishedWithVerifyLater(domainName: string, options: { secondAdmin: boolean }) {
  const org = await createOrganizationWithAdmin(t.db);
  await insertSetupRecord(t.db, org.id);
  if (options.secondAdmin) {
    const secondAdmin = await createUser(t.db, org.id);
    await t.db
      .insertInto('group_members')
      .values({ group_id: org.dashboardGroupId, user_id: secondAdmin.id, organization_id: org.id })
      .execute();
  }
  const admin = await signInAs(t.db, org.admin);
  const mark = async (step: string, outcome: 'done' | 'skipped') => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/setup/steps/${step}`,
      headers: admin.headers,
      payload: { outcome },
    });
    expect(response.statusCode, response.body).toBe(200);
  };
  await mark('profile', 'done');
  const domain = await addDomain(t.app, admin, domainName);
  await mark('domain', 'done');
  await mark('verify', 'skipped');
  await mark('users', options.secondAdmin ? 'done' : 'skipped');
  await mark('apps', 'done');
  const finished = await t.app.inject({
    method: 'POST',
    url: '/api/setup/complete',
    headers: admin.headers,
    payload: {},
  });
  expect(finished.statusCode, finished.body).toBe(200);
  return { org, admin, domain };
}

async function openSteps(admin: TestSession) {
  const response = await t.app.inject({ url: '/api/dashboard', headers: admin.headers });
  return response.json().setup.openSteps;
}

/** Each admin's "setup steps left" reminders, unread ones flagged. */
function reminders(org: TestOrganization) {
  return t.db
    .selectFrom('notifications')
    .select(['user_id', 'title', 'body', sql<boolean>`read_at is null`.as('unread')])
    .where('organization_id', '=', org.id)
    .where('kind', '=', SETUP_STEPS_LEFT)
    .orderBy('user_id')
    .execute();
}

describe('setup checklist after "verify later"', () => {
  it('keeps "verify" open until the Verify button verifies the domain, then the reminder follows', async () => {
    const { org, admin, domain } = await finishedWithVerifyLater('button.example', { secondAdmin: false });
    expect(await openSteps(admin)).toEqual(['verify', 'users']);
    expect(await reminders(org)).toEqual([
      expect.objectContaining({ title: '2 setup steps left', body: 'Verify your domain · Add users' }),
    ]);

    dns.set(domain.name, { TXT: [domain.verificationRecord.value] });
    expect((await verify(t.app, admin, domain.id)).check.outcome).toBe('verified');

    expect(await openSteps(admin)).toEqual(['users']);
    const progress = (await t.app.inject({ url: '/api/setup', headers: admin.headers })).json();
    expect(progress).toMatchObject({ skipped: ['users'], completed: true });
    expect(progress.done).toContain('verify');
    // Replaced, not added beside the old one.
    expect(await reminders(org)).toEqual([
      { user_id: org.admin.id, title: '1 setup step left', body: 'Add users', unread: true },
    ]);
  });

  it('withdraws the unread reminder when the background re-check verifies the last open step', async () => {
    const { org, admin, domain } = await finishedWithVerifyLater('background.example', { secondAdmin: true });
    expect(await openSteps(admin)).toEqual(['verify']);
    expect(await reminders(org)).toHaveLength(2);
    // One admin has read the reminder already: a read one stays in their list.
    await t.db
      .updateTable('notifications')
      .set({ read_at: sql<Date>`now()` })
      .where('organization_id', '=', org.id)
      .where('user_id', '=', org.admin.id)
      .execute();

    dns.set(domain.name, { TXT: [domain.verificationRecord.value] });
    await t.db
      .updateTable('domains')
      .set({ next_check_at: sql<Date>`now() - interval '1 second'` })
      .where('id', '=', domain.id)
      .execute();
    const job = createDomainRecheckJob({
      db: t.db,
      config: t.config,
      dns: createDnsClient(t.config),
      log: t.app.log,
    });
    expect(await job.runOnce()).toMatchObject({ checked: 1, verified: 1 });

    expect(await openSteps(admin)).toEqual([]);
    expect(await reminders(org)).toEqual([
      { user_id: org.admin.id, title: '1 setup step left', body: 'Verify your domain', unread: false },
    ]);
  });
});
