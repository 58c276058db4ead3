import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, signInAs, type TestOrganization } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { addDomain, as } from './helpers.ts';

let mailbox: Mailbox;
let t: TestApp;
let org: TestOrganization;
let other: TestOrganization;
let admin: ReturnType<typeof as>;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  t = await createTestApp({ env: { SMTP_URL: mailbox.url, PUBLIC_URL: 'https://console.atrium.test' } });
  org = await createOrganizationWithAdmin(t.db);
  other = await createOrganizationWithAdmin(t.db);
  admin = as(t, await signInAs(t.db, org.admin));
  await addDomain(t.db, org.id, 'acme.test', 'verified');
  await addDomain(t.db, org.id, 'pending.acme.test', 'pending');
  await addDomain(t.db, other.id, 'other.test', 'verified');
});

afterAll(async () => {
  await t.close();
  await mailbox.close();
});

const person = (localPart: string, extra: Record<string, unknown> = {}) => ({
  firstName: 'Grace',
  lastName: 'Hopper',
  localPart,
  domain: 'acme.test',
  groupIds: [],
  credential: 'password',
  password: 'correct horse battery staple',
  ...extra,
});

describe('adding a user', () => {
  it('offers only the verified domains', async () => {
    const domains = await admin.get('/api/users/email-domains');
    expect(domains.body).toEqual({ domains: ['acme.test'], anyDomain: false, mailHosted: [] });
  });

  it('creates an active user with the initial password, in the chosen groups', async () => {
    const dashboard = org.dashboardGroupId;
    const created = await admin.post('/api/users', person('Grace.Hopper', { groupIds: [dashboard] }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      invited: false,
      user: {
        name: 'Grace Hopper',
        email: 'grace.hopper@acme.test',
        status: 'active',
        groups: [{ id: dashboard, name: 'Dashboard', isSystem: true }],
      },
    });
    const row = await t.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', created.body.user.id)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword(row.password_hash!, 'correct horse battery staple')).toBe(true);
    expect(row.name_key).toBe('grace hopper');
    expect(row.organization_id).toBe(org.id);
  });

  it('records the activity and notifies every admin', async () => {
    const created = await admin.post('/api/users', person('notify'));
    const activity = await t.db
      .selectFrom('activity_log')
      .selectAll()
      .where('target_id', '=', created.body.user.id)
      .executeTakeFirstOrThrow();
    expect(activity).toMatchObject({
      action: 'user.added',
      actor_user_id: org.admin.id,
      organization_id: org.id,
    });
    const notes = await t.db
      .selectFrom('notifications')
      .selectAll()
      .where('kind', '=', 'user.added')
      .where('link', '=', `/users/${created.body.user.id}`)
      .execute();
    expect(notes.map((n) => n.user_id).sort()).toContain(org.admin.id);
    expect(notes[0]!.title).toBe('Grace Hopper was added');
  });

  it('refuses an address used in this organisation, ignoring case', async () => {
    const again = await admin.post('/api/users', person('GRACE.hopper'));
    expect(again.status).toBe(400);
    expect(again.body.error.fields).toEqual({ localPart: 'This address is already in use' });
  });

  it('refuses an address used in another organisation without naming it', async () => {
    await t.db
      .insertInto('users')
      .values({
        organization_id: other.id,
        email: 'taken@acme.test',
        first_name: 'T',
        last_name: 'Aken',
        name_key: 't aken',
      })
      .execute();
    const taken = await admin.post('/api/users', person('taken'));
    expect(taken.status).toBe(400);
    expect(taken.body.error.fields).toEqual({ localPart: 'This address is already in use' });
    expect(JSON.stringify(taken.body)).not.toContain(other.siteName);
  });

  it('refuses a pending domain, another organisation’s domain and a malformed local part', async () => {
    const pending = await admin.post('/api/users', person('p', { domain: 'pending.acme.test' }));
    expect(pending.status).toBe(400);
    expect(pending.body.error.fields.domain).toBe('Choose one of your organisation’s verified domains');
    const foreign = await admin.post('/api/users', person('p', { domain: 'other.test' }));
    expect(foreign.body.error.fields.domain).toBeDefined();
    const bad = await admin.post('/api/users', person('two..dots'));
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields.localPart).toMatch(/two dots/);
  });

  it('applies the password rules and requires names', async () => {
    const common = await admin.post('/api/users', person('weak', { password: 'password123' }));
    expect(common.status).toBe(400);
    expect(common.body.error.fields.password).toMatch(/too common/);
    const short = await admin.post('/api/users', person('weak', { password: 'short' }));
    expect(short.body.error.fields.password).toBe('Use at least 8 characters');
    const noName = await admin.post('/api/users', person('weak', { firstName: '  ' }));
    expect(noName.body.error.fields.firstName).toBe('Enter the first name');
  });

  it('refuses a group of another organisation as if it did not exist', async () => {
    const foreign = await admin.post('/api/users', person('foreign', { groupIds: [other.dashboardGroupId] }));
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.fields.groupIds).toMatch(/no longer exists/);
    const none = await t.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'foreign@acme.test')
      .execute();
    expect(none).toEqual([]);
  });

  it('invites by e-mail: the user is invited and gets a link to /invite/<token>', async () => {
    const created = await admin.post(
      '/api/users',
      person('invitee', { credential: 'invitation', password: undefined }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ invited: true, mailSent: true, user: { status: 'invited' } });
    const mail = await mailbox.waitFor('invitee@acme.test');
    expect(mail.subject).toBe(`You have been invited to Org ${org.siteName}`);
    expect(mail.text).toMatch(/expires in 72 hours/);
    const link = await mailbox.waitForLink('invitee@acme.test');
    expect(link).toMatch(/^https:\/\/console\.atrium\.test\/invite\/[\w-]{43}$/);
    const detail = await admin.get(`/api/users/${created.body.user.id}`);
    expect(detail.body.pendingLink).toMatchObject({ purpose: 'invite' });
  });
});

describe('unverified domains (ALLOW_UNVERIFIED_DOMAINS)', () => {
  it('offers every domain of the organisation and accepts any other', async () => {
    const loose = await createTestApp({ env: { ALLOW_UNVERIFIED_DOMAINS: 'true' }, database: t.database });
    try {
      const session = as(loose, await signInAs(t.db, org.admin));
      expect((await session.get('/api/users/email-domains')).body).toEqual({
        domains: ['acme.test', 'pending.acme.test'],
        anyDomain: true,
        mailHosted: [],
      });
      const ok = await session.post('/api/users', person('on-pending', { domain: 'pending.acme.test' }));
      expect(ok.status).toBe(201);
      const elsewhere = await session.post('/api/users', person('elsewhere', { domain: 'example.net' }));
      expect(elsewhere.status).toBe(201);
    } finally {
      await loose.close();
    }
  });

  it('lets an organisation without domains use any domain, except one verified elsewhere', async () => {
    const loose = await createTestApp({ env: { ALLOW_UNVERIFIED_DOMAINS: 'true' }, database: t.database });
    try {
      const bare = await createOrganizationWithAdmin(t.db);
      const session = as(loose, await signInAs(t.db, bare.admin));
      expect((await session.get('/api/users/email-domains')).body).toEqual({
        domains: [],
        anyDomain: true,
        mailHosted: [],
      });
      expect((await session.post('/api/users', person('eval', { domain: 'example.org' }))).status).toBe(201);
      const squat = await session.post('/api/users', person('squat', { domain: 'other.test' }));
      expect(squat.status).toBe(400);
      expect(squat.body.error.fields.domain).toMatch(/cannot be used/);
    } finally {
      await loose.close();
    }
  });

  it('refuses names under a domain another organisation verified, even one this organisation added', async () => {
    const loose = await createTestApp({ env: { ALLOW_UNVERIFIED_DOMAINS: 'true' }, database: t.database });
    try {
      const squatter = await createOrganizationWithAdmin(t.db);
      // Added (never verified) by the squatter: other.test is verified by another organisation.
      await addDomain(t.db, squatter.id, 'mail.other.test', 'pending');
      const session = as(loose, await signInAs(t.db, squatter.admin));
      for (const domain of ['sub.other.test', 'deep.sub.other.test', 'mail.other.test']) {
        const refused = await session.post('/api/users', person('squat', { domain }));
        expect(refused.status, domain).toBe(400);
        expect(refused.body.error.fields.domain).toMatch(/cannot be used/);
      }
      expect((await session.post('/api/users', person('fine', { domain: 'another.test' }))).status).toBe(201);
    } finally {
      await loose.close();
    }
  });

  it('without the setting, an organisation without verified domains is told to verify one', async () => {
    const bare = await createOrganizationWithAdmin(t.db);
    const session = as(t, await signInAs(t.db, bare.admin));
    const refused = await session.post('/api/users', person('x', { domain: 'example.org' }));
    expect(refused.body.error.fields.domain).toMatch(/no verified domain yet/);
  });
});
