import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { addVerifiedDomain } from '../domains/domain-helpers.ts';
import { TestDnsServer } from '../support/dns-server.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
  type TestSession,
  type TestUser,
} from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Events created through other areas' real routes (installing an app, adding a user, changing a
// password) reach the right people's notifications and the right organisation's activity log,
// and nobody else's.

let t: TestApp;
let orgA: TestOrganization;
let orgB: TestOrganization;
let secondAdminA: TestUser;
let memberA: TestUser;
let dns: TestDnsServer;
const session = new Map<string, TestSession>();

async function as(user: TestUser): Promise<TestSession> {
  if (!session.has(user.id)) session.set(user.id, await signInAs(t.db, user));
  return session.get(user.id)!;
}

async function notificationTitles(user: TestUser): Promise<string[]> {
  const res = await t.app.inject({ url: '/api/notifications', headers: (await as(user)).headers });
  expect(res.statusCode).toBe(200);
  return res.json().items.map((n: { title: string }) => n.title);
}

beforeAll(async () => {
  dns = await TestDnsServer.start();
  t = await createTestApp({ env: { DNS_SERVERS: dns.address } });
  orgA = await createOrganizationWithAdmin(t.db);
  orgB = await createOrganizationWithAdmin(t.db);
  secondAdminA = await createUser(t.db, orgA.id);
  await t.db
    .insertInto('group_members')
    .values({ group_id: orgA.dashboardGroupId, user_id: secondAdminA.id, organization_id: orgA.id })
    .execute();
  memberA = await createUser(t.db, orgA.id);
});

afterAll(async () => {
  await t.close();
  await dns.close();
});

it('installing an app notifies every admin of that organisation only and is logged there only', async () => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/apps',
    headers: (await as(orgA.admin)).headers,
    payload: {
      templateKey: 'wiki',
      title: 'Team wiki',
      launchUrl: 'https://wiki.example.com',
      redirectUris: ['https://wiki.example.com/oidc/callback'],
      openToEveryone: true,
      groupIds: [],
    },
  });
  expect(res.statusCode).toBe(201);

  expect(await notificationTitles(orgA.admin)).toContain('Team wiki was installed');
  expect(await notificationTitles(secondAdminA)).toContain('Team wiki was installed');
  expect(await notificationTitles(memberA)).not.toContain('Team wiki was installed');
  expect(await notificationTitles(orgB.admin)).toEqual([]);

  const logA = await t.app.inject({ url: '/api/activity?kind=app', headers: (await as(orgA.admin)).headers });
  expect(logA.json().items).toEqual([
    expect.objectContaining({
      action: 'app.installed',
      target: expect.objectContaining({ type: 'app', label: 'Team wiki' }),
      actor: expect.objectContaining({ userId: orgA.admin.id }),
    }),
  ]);
  const logB = await t.app.inject({ url: '/api/activity', headers: (await as(orgB.admin)).headers });
  expect(logB.json().items).toEqual([]);
});

it('a refused install leaves no notification and no activity entry', async () => {
  const before = await notificationTitles(orgA.admin);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/apps',
    headers: (await as(orgA.admin)).headers,
    payload: {
      templateKey: 'chat',
      title: 'Chat',
      launchUrl: 'https://chat.example.com',
      redirectUris: ['https://chat.example.com/cb'],
      openToEveryone: false,
      // A group of another organisation: refused, and the whole install with it.
      groupIds: [orgB.dashboardGroupId],
    },
  });
  expect(res.statusCode).toBeGreaterThanOrEqual(400);
  expect(await notificationTitles(orgA.admin)).toEqual(before);
  const log = await t.app.inject({ url: '/api/activity?kind=app', headers: (await as(orgA.admin)).headers });
  expect(log.json().items.map((e: { target: { label: string } }) => e.target.label)).toEqual(['Team wiki']);
});

it('verifying a domain and adding a user notify every admin of that organisation only', async () => {
  await addVerifiedDomain(t.app, await as(orgA.admin), dns, 'events.example');
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/users',
    headers: (await as(orgA.admin)).headers,
    payload: {
      firstName: 'Nina',
      lastName: 'New',
      localPart: 'nina',
      domain: 'events.example',
      credential: 'password',
      password: 'a long and unusual passphrase',
    },
  });
  expect(res.statusCode).toBe(201);
  const about = (titles: string[]) => titles.filter((title) => /events\.example|Nina New/.test(title));
  for (const admin of [orgA.admin, secondAdminA]) {
    expect(about(await notificationTitles(admin))).toEqual([
      expect.stringContaining('Nina New'),
      expect.stringContaining('events.example'),
    ]);
  }
  expect(about(await notificationTitles(memberA))).toEqual([]);
  expect(about(await notificationTitles(orgB.admin))).toEqual([]);
});

it('a password changed on your own account, set by an admin or reset tells only you', async () => {
  const password = 'the first long passphrase';
  const owner = await createUser(t.db, orgA.id, { passwordHash: await hashPassword(password) });
  const changed = await t.app.inject({
    method: 'POST',
    url: '/api/profile/password',
    headers: (await as(owner)).headers,
    payload: { currentPassword: password, newPassword: 'a second long passphrase' },
  });
  expect(changed.statusCode).toBe(200);
  expect(await notificationTitles(owner)).toEqual(['Your password was changed']);

  const set = await t.app.inject({
    method: 'PUT',
    url: `/api/users/${owner.id}/password`,
    headers: (await as(orgA.admin)).headers,
    payload: { password: 'a third long passphrase' },
  });
  expect(set.statusCode).toBe(200);
  session.delete(owner.id); // the admin's change signed the owner out everywhere
  expect(await notificationTitles(owner)).toEqual([
    'An administrator set a new password for you',
    'Your password was changed',
  ]);
  for (const other of [orgA.admin, secondAdminA, memberA, orgB.admin]) {
    expect(await notificationTitles(other)).not.toContain('Your password was changed');
    expect(await notificationTitles(other)).not.toContain('An administrator set a new password for you');
  }
});
