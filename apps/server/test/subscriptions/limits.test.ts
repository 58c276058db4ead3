import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
} from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { installBody } from '../apps/helpers.ts';
import { addDomain, as } from '../users/helpers.ts';
import { dryRun, startImport } from '../migration/helpers.ts';
import { countUsers, person, setSubscription } from './helpers.ts';

// Issue 15: every limit of the plan, enforced on the server with an error that says the limit
// and how to raise it.
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { SITE_BASE_DOMAIN: 'atrium.test' } });
});

afterAll(async () => {
  await t.close();
});

async function organization(subscription: Parameters<typeof setSubscription>[2]) {
  const org = await createOrganizationWithAdmin(t.db);
  await setSubscription(t.db, org.id, subscription);
  await addDomain(t.db, org.id, `${org.siteName}.test`, 'verified');
  return { org, admin: as(t, await signInAs(t.db, org.admin)), domain: `${org.siteName}.test` };
}

describe('seats', () => {
  it('refuses a user beyond the seats, saying the limit and where to raise it', async () => {
    const { org, admin, domain } = await organization({ planKey: 'business', seats: 3 });
    expect((await admin.post('/api/users', person('one', domain))).status).toBe(201);
    expect((await admin.post('/api/users', person('two', domain))).status).toBe(201);
    const refused = await admin.post('/api/users', person('three', domain));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({
      code: 'seat_limit',
      message:
        'All 3 seats of your Business plan are in use (invited and suspended users hold a seat too). ' +
        'Add seats on the Subscriptions page, or delete a user first.',
    });
    expect(await countUsers(t.db, org.id)).toBe(3);
  });

  it('counts suspended and invited users: each holds a seat', async () => {
    const { org, admin, domain } = await organization({ planKey: 'business', seats: 3 });
    const suspended = await createUser(t.db, org.id);
    await t.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', suspended.id).execute();
    const invited = await admin.post('/api/users', person('invited', domain, { credential: 'invitation' }));
    expect(invited.status).toBe(201);
    expect(invited.body.user.status).toBe('invited');
    const refused = await admin.post('/api/users', person('fourth', domain, { credential: 'invitation' }));
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('seat_limit');
    // Reactivating a suspended user takes no new seat.
    expect((await admin.post(`/api/users/${suspended.id}/reactivate`)).status).toBe(200);
  });

  it('at the plan’s own seat limit, says to change plan', async () => {
    const { admin, domain } = await organization({ planKey: 'free', seats: 5 });
    for (const name of ['b', 'c', 'd', 'e']) {
      expect((await admin.post('/api/users', person(name, domain))).status).toBe(201);
    }
    const refused = await admin.post('/api/users', person('f', domain));
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe(
      'All 5 seats of your Free plan are in use (invited and suspended users hold a seat too). ' +
        'The Free plan allows at most 5 seats: change to a larger plan on the Subscriptions page, or delete a user first.',
    );
  });

  it('two admins adding users at once never exceed the seats', async () => {
    const { org, domain } = await organization({ planKey: 'business', seats: 4 });
    const second = await createUser(t.db, org.id, { email: `second@${domain}` });
    await t.db
      .insertInto('group_members')
      .values({
        group_id: org.dashboardGroupId,
        user_id: second.id,
        organization_id: org.id,
      })
      .execute();
    // Two users now: two seats left, and ten requests from two admins racing for them. Invited
    // users (no password to hash first) reach the database together.
    const admins = [as(t, await signInAs(t.db, org.admin)), as(t, await signInAs(t.db, second))];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        admins[i % 2]!.post('/api/users', person(`racer${i}`, domain, { credential: 'invitation' })),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(2);
    expect(statuses.filter((s) => s === 409)).toHaveLength(8);
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.code).toBe('seat_limit');
    expect(await countUsers(t.db, org.id)).toBe(4);
  });
});

describe('domains', () => {
  it('refuses a domain beyond the plan’s maximum', async () => {
    const { org, admin } = await organization({ planKey: 'free', seats: 5 });
    // The organisation has one domain (its own test domain); Free allows one.
    const refused = await admin.post('/api/domains', { name: 'second.example' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({
      code: 'domain_limit',
      message:
        'Your Free plan allows 1 domain and your organisation has 1. ' +
        'Change to a plan with more domains on the Subscriptions page, or delete a domain first.',
    });
    const list = await admin.get('/api/domains');
    expect(list.body.limit).toBe(1);
    await setSubscription(t.db, org.id, { planKey: 'business', seats: 5 });
    expect((await admin.post('/api/domains', { name: 'second.example' })).status).toBe(201);
  });
});

describe('apps', () => {
  it('refuses an app template the plan does not include', async () => {
    const { org, admin } = await organization({ planKey: 'free', seats: 5 });
    const refused = await admin.post('/api/apps', installBody());
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({
      code: 'app_not_in_plan',
      message:
        'Wiki is not included in your Free plan. Change to a plan that includes it on the Subscriptions page.',
    });
    const chat = await admin.post(
      '/api/apps',
      installBody({
        templateKey: 'chat',
        title: 'Chat',
        launchUrl: 'https://chat.example.com',
        redirectUris: ['https://chat.example.com/_oauth/atrium'],
      }),
    );
    expect(chat.status).toBe(201);
    await setSubscription(t.db, org.id, { planKey: 'business', seats: 5 });
    expect((await admin.post('/api/apps', installBody())).status).toBe(201);
  });
});

describe('a cancelled subscription', () => {
  let org: TestOrganization;
  let admin: ReturnType<typeof as>;
  let domain: string;

  beforeAll(async () => {
    ({ org, admin, domain } = await organization({ planKey: 'business', seats: 20, status: 'cancelled' }));
  });

  it('refuses every change with a message saying how to make changes again', async () => {
    const attempts = [
      await admin.post('/api/users', person('late', domain)),
      await admin.post('/api/groups', { name: 'Sales' }),
      await admin.post('/api/domains', { name: 'another.example' }),
      await admin.put('/api/organization', { name: 'Renamed' }),
      await admin.post('/api/apps', installBody()),
    ];
    for (const attempt of attempts) {
      expect(attempt.status).toBe(409);
      expect(attempt.body.error).toEqual({
        code: 'subscription_cancelled',
        message:
          'Your subscription is cancelled, so nothing can be changed: you can still read and export. ' +
          'Choose a plan on the Subscriptions page to make changes again.',
      });
    }
    expect(await countUsers(t.db, org.id)).toBe(1);
  });

  it('still lets the admin read and export', async () => {
    expect((await admin.get('/api/users')).status).toBe(200);
    expect((await admin.get('/api/domains')).status).toBe(200);
    expect((await admin.get('/api/dashboard')).status).toBe(200);
    const csv = await admin.get('/api/users/export.csv');
    expect(csv.status).toBe(200);
    expect(csv.response.body).toContain(org.admin.email);
    expect((await admin.get('/api/activity/export')).status).toBe(200);
  });

  it('checks a user file (the dry run writes nothing), while the import itself stays refused', async () => {
    const csv = `email,first name,last name\nada@${domain},Ada,Lovelace\n`;
    const session = await signInAs(t.db, org.admin);
    const checked = await dryRun(t, session, csv);
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ totalRows: 1, counts: { create: 1, errors: 0 } });
    const started = await startImport(t, session, csv);
    expect(started.status).toBe(409);
    expect(started.body.error.code).toBe('subscription_cancelled');
    expect(await countUsers(t.db, org.id)).toBe(1);
  });

  it('lets the admin change the plan, which makes it active and changes possible again', async () => {
    const changed = await admin.put('/api/subscription', { planKey: 'business', seats: 20 });
    expect(changed.status).toBe(200);
    expect(changed.body.subscription.status).toBe('active');
    expect((await admin.post('/api/users', person('back', domain))).status).toBe(201);
  });
});
