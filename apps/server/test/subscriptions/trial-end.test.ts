import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/modules/organizations/create-organization.ts';
import { TRIAL_END_JOB } from '../../src/modules/subscriptions/trial-end.ts';
import { signInAs } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { as } from '../users/helpers.ts';

// A trial that ends with nobody having said otherwise becomes past_due, through the job queue.
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t.close();
});

async function newOrganization(siteName: string) {
  const created = await createOrganization(t.db, t.config, {
    name: `${siteName} Ltd`,
    siteName,
    admin: { email: `ada@${siteName}.test`, firstName: 'Ada', lastName: 'Lovelace', passwordHash: null },
  });
  const organizationId = created.organizationId;
  const admin = as(
    t,
    await signInAs(t.db, { id: created.adminUserId, email: `ada@${siteName}.test`, organizationId }),
  );
  return { organizationId, admin };
}

const trialJobs = (organizationId: string) =>
  t.db
    .selectFrom('jobs')
    .select(['status', 'run_at'])
    .where('kind', '=', TRIAL_END_JOB)
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .execute();

/** The organisation's trial-end job runs at the next drain, whenever it was due. */
const trialEndJobDueNow = (organizationId: string) =>
  t.db
    .updateTable('jobs')
    .set({ run_at: sql`now()` })
    .where('kind', '=', TRIAL_END_JOB)
    .where('organization_id', '=', organizationId)
    .execute();

/** As if the days had passed: the trial ended a minute ago and its job is due. */
async function passTrialEnd(organizationId: string) {
  await t.db
    .updateTable('subscriptions')
    .set({ trial_ends_at: sql`now() - interval '1 minute'` })
    .where('organization_id', '=', organizationId)
    .execute();
  await trialEndJobDueNow(organizationId);
  await t.app.jobs.drain();
}

describe('the end of a trial', () => {
  it('is looked at when the trial ends, and makes the subscription past due', async () => {
    const { organizationId, admin } = await newOrganization('lapsed');
    const [job] = await trialJobs(organizationId);
    const { subscription } = (await admin.get('/api/subscription')).body;
    expect(subscription.status).toBe('trial');
    expect(job!.status).toBe('queued');
    expect(new Date(job!.run_at).toISOString()).toBe(subscription.trialEndsAt);

    await passTrialEnd(organizationId);

    const after = (await admin.get('/api/subscription')).body;
    expect(after.subscription.status).toBe('past_due');
    expect(after.history[0]).toMatchObject({
      actorLabel: 'System',
      source: 'system',
      from: { status: 'trial' },
      to: { status: 'past_due' },
    });
    const activity = await t.db
      .selectFrom('activity_log')
      .select('action')
      .where('organization_id', '=', organizationId)
      .where('action', '=', 'subscription.trial_ended')
      .execute();
    expect(activity).toHaveLength(1);
    // Past due is a grace period: the organisation keeps working.
    const added = await admin.post('/api/groups', { name: 'Sales' });
    expect(added.status).toBe(201);
  });

  it('leaves alone a trial the billing system has made active', async () => {
    const { organizationId, admin } = await newOrganization('paid');
    await t.db
      .updateTable('subscriptions')
      .set({ status: 'active' })
      .where('organization_id', '=', organizationId)
      .execute();
    await passTrialEnd(organizationId);
    expect((await admin.get('/api/subscription')).body.subscription.status).toBe('active');
  });

  it('looks again later at a trial that was moved later', async () => {
    const { organizationId, admin } = await newOrganization('extended');
    const later = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000);
    await trialEndJobDueNow(organizationId);
    await t.db
      .updateTable('subscriptions')
      .set({ trial_ends_at: later })
      .where('organization_id', '=', organizationId)
      .execute();
    await t.app.jobs.drain();

    expect((await admin.get('/api/subscription')).body.subscription.status).toBe('trial');
    const jobs = await trialJobs(organizationId);
    expect(jobs.map((j) => j.status)).toEqual(['done', 'queued']);
    expect(new Date(jobs[1]!.run_at).getTime()).toBe(later.getTime());
  });
});
