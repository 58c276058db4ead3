import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/modules/organizations/create-organization.ts';
import { installBody } from '../apps/helpers.ts';
import { createUser, signInAs } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from '../users/helpers.ts';
import { person } from './helpers.ts';

// Issue 15: /subscriptions' API (plan, seats used of bought, dates, history, changes), the mail
// plan call and the dashboard's seats, for an organisation created the real way.
let t: TestApp;
let organizationId: string;
let admin: ReturnType<typeof as>;
let adminUser: { id: string; email: string; organizationId: string };

beforeAll(async () => {
  t = await createTestApp({ env: { SITE_BASE_DOMAIN: 'atrium.test' } });
  const created = await createOrganization(t.db, t.config, {
    name: 'Acme Ltd',
    siteName: 'acme',
    admin: { email: 'ada@acme.test', firstName: 'Ada', lastName: 'Lovelace', passwordHash: null },
  });
  organizationId = created.organizationId;
  adminUser = { id: created.adminUserId, email: 'ada@acme.test', organizationId };
  admin = as(t, await signInAs(t.db, adminUser));
  await addDomain(t.db, organizationId, 'acme.test', 'verified');
});

afterAll(async () => {
  await t.close();
});

describe('a new organisation', () => {
  it('starts on the default plan’s trial, with its seats and dates', async () => {
    const response = await admin.get('/api/subscription');
    expect(response.status).toBe(200);
    const { subscription, plans, history } = response.body;
    expect(subscription).toMatchObject({
      plan: { key: 'business', title: 'Business', pricePerSeat: '$6 per user / month', allApps: true },
      status: 'trial',
      seats: 10,
      seatsUsed: 1,
      domainsUsed: 1,
      maxDomains: 10,
    });
    const trialDays = (Date.parse(subscription.trialEndsAt) - Date.now()) / 86_400_000;
    expect(Math.round(trialDays)).toBe(14);
    expect(subscription.renewsAt).toBe(subscription.trialEndsAt);
    expect(plans.map((p: { key: string }) => p.key)).toEqual(['free', 'business', 'enterprise']);
    expect(plans[0]).toMatchObject({
      seatLimit: 5,
      maxDomains: 1,
      mailboxQuotaMb: 5120,
      allApps: false,
      appTemplates: [
        { key: 'cloud-storage', title: 'Cloud Storage' },
        { key: 'mail', title: 'Mail' },
        { key: 'chat', title: 'Chat' },
      ],
    });
    expect(history).toEqual([
      expect.objectContaining({
        actorLabel: 'System',
        source: 'system',
        from: null,
        to: { planKey: 'business', seats: 10, status: 'trial' },
      }),
    ]);
  });

  it('shows seats used of bought on the dashboard', async () => {
    await createUser(t.db, organizationId);
    const dashboard = await admin.get('/api/dashboard');
    expect(dashboard.body.counts.seats).toEqual({ used: 2, bought: 10 });
  });

  it('answers the mail plan details: quota per mailbox, no usage while mail is not set up', async () => {
    const response = await admin.get('/api/subscription/mail-plan');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      planKey: 'business',
      planTitle: 'Business',
      quotaPerMailboxMb: 30 * 1024,
      mailboxes: 2,
      mailConfigured: false,
      usage: null,
    });
  });
});

describe('changing plan or seats', () => {
  it('applies more seats at once, keeps the history and logs the activity', async () => {
    const response = await admin.put('/api/subscription', { planKey: 'business', seats: 12 });
    expect(response.status).toBe(200);
    expect(response.body.subscription).toMatchObject({ seats: 12, status: 'trial', seatsUsed: 2 });
    expect(response.body.history[0]).toMatchObject({
      actorLabel: 'Ada Lovelace',
      source: 'console',
      from: { planKey: 'business', seats: 10, status: 'trial' },
      to: { planKey: 'business', seats: 12, status: 'trial' },
    });
    const activity = await admin.get('/api/activity?kind=subscription.changed');
    expect(activity.body.items[0]).toMatchObject({
      actor: { label: 'Ada Lovelace' },
      action: 'subscription.changed',
      target: { type: 'subscription', label: 'Business' },
    });
  });

  it('refuses fewer seats than users, saying how many to delete first', async () => {
    const response = await admin.put('/api/subscription', { planKey: 'business', seats: 1 });
    expect(response.status).toBe(409);
    expect(response.body.error).toEqual({
      code: 'below_usage',
      message:
        'Your organisation uses more than the Business plan with 1 seat allows. ' +
        'Delete 1 user first: 2 users hold seats (invited and suspended ones too) and 1 seat would not be enough.',
      fields: {
        seats:
          'Delete 1 user first: 2 users hold seats (invited and suspended ones too) and 1 seat would not be enough.',
      },
    });
    expect((await admin.get('/api/subscription')).body.subscription.seats).toBe(12);
  });

  it('refuses a downgrade below the domains and apps in use, naming what to remove', async () => {
    await addDomain(t.db, organizationId, 'second.acme.test', 'pending');
    expect((await admin.post('/api/apps', installBody())).status).toBe(201);
    const response = await admin.put('/api/subscription', { planKey: 'free', seats: 5 });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('below_usage');
    expect(response.body.error.fields).toEqual({
      planKey:
        'Delete 1 domain first: the Free plan allows 1 domain and your organisation has 2. ' +
        'Uninstall Wiki first: the Free plan does not include it.',
    });
  });

  it('refuses more seats than the plan allows, and an unknown plan', async () => {
    const tooMany = await admin.put('/api/subscription', { planKey: 'free', seats: 6 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.fields).toEqual({
      seats: 'The Free plan allows at most 5 seats; choose a larger plan for more.',
    });
    const unknown = await admin.put('/api/subscription', { planKey: 'platinum', seats: 6 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.fields).toEqual({ planKey: 'There is no plan "platinum"' });
    const bad = await admin.put('/api/subscription', { planKey: 'business', seats: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields).toEqual({ seats: 'At least 1 seat' });
  });

  it('upgrades the plan at once', async () => {
    const response = await admin.put('/api/subscription', { planKey: 'enterprise', seats: 60 });
    expect(response.status).toBe(200);
    expect(response.body.subscription).toMatchObject({
      plan: { key: 'enterprise', title: 'Enterprise' },
      seats: 60,
      maxDomains: 30, // the server's MAX_DOMAINS_PER_ORGANIZATION is below the plan's 100
    });
    // The plan itself, as the plan card and the plan chooser show it, says the same 30.
    expect(response.body.subscription.plan.maxDomains).toBe(30);
    const page = await admin.get('/api/subscription');
    expect(page.body.plans.find((p: { key: string }) => p.key === 'enterprise').maxDomains).toBe(30);
    const mailPlan = await admin.get('/api/subscription/mail-plan');
    expect(mailPlan.body.quotaPerMailboxMb).toBe(100 * 1024);
  });

  it('adds a user once seats are raised', async () => {
    await admin.put('/api/subscription', { planKey: 'business', seats: 3 });
    expect((await admin.post('/api/users', person('third', 'acme.test'))).status).toBe(201);
    expect((await admin.post('/api/users', person('fourth', 'acme.test'))).body.error.code).toBe(
      'seat_limit',
    );
    await admin.put('/api/subscription', { planKey: 'business', seats: 4 });
    expect((await admin.post('/api/users', person('fourth', 'acme.test'))).status).toBe(201);
  });
});

describe('who may see and change it', () => {
  it('only admins of the organisation', async () => {
    const member = await createUser(t.db, organizationId);
    const user = as(t, await signInAs(t.db, member));
    expect((await user.get('/api/subscription')).status).toBe(403);
    expect((await user.put('/api/subscription', { planKey: 'enterprise', seats: 50 })).status).toBe(403);
    expect((await user.get('/api/subscription/mail-plan')).status).toBe(403);
    expect((await t.app.inject({ url: '/api/subscription' })).statusCode).toBe(401);
  });
});
