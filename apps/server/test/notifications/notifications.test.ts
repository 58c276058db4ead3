import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Notification } from '@atrium/contracts/notifications';
import { notifyAdmins, notifySetupStepsLeft, notifyUsers } from '../../src/modules/notifications/notify.ts';
import {
  createOrganizationWithAdmin,
  createUser,
  signInAs,
  type TestOrganization,
  type TestSession,
  type TestUser,
} from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let orgA: TestOrganization;
let orgB: TestOrganization;
let secondAdminA: TestUser;
let memberA: TestUser;
const sessions = new Map<string, TestSession>();

async function addAdmin(org: TestOrganization): Promise<TestUser> {
  const user = await createUser(t.db, org.id, { firstName: 'Second', lastName: 'Admin' });
  await t.db
    .insertInto('group_members')
    .values({ group_id: org.dashboardGroupId, user_id: user.id, organization_id: org.id })
    .execute();
  return user;
}

async function sessionOf(user: TestUser): Promise<TestSession> {
  let session = sessions.get(user.id);
  if (!session) {
    session = await signInAs(t.db, user);
    sessions.set(user.id, session);
  }
  return session;
}

async function list(user: TestUser, query = '') {
  const res = await t.app.inject({
    url: `/api/notifications${query}`,
    headers: (await sessionOf(user)).headers,
  });
  expect(res.statusCode).toBe(200);
  return res.json() as {
    items: Notification[];
    nextCursor: string | null;
    unreadCount: number;
    totalCount: number;
  };
}

async function send(user: TestUser, method: 'POST' | 'DELETE', url: string) {
  return t.app.inject({ method, url, headers: (await sessionOf(user)).headers });
}

beforeAll(async () => {
  t = await createTestApp();
  orgA = await createOrganizationWithAdmin(t.db);
  orgB = await createOrganizationWithAdmin(t.db);
  secondAdminA = await addAdmin(orgA);
  memberA = await createUser(t.db, orgA.id);
});

afterAll(async () => {
  await t.close();
});

beforeEach(async () => {
  await t.db.deleteFrom('notifications').execute();
});

describe('who gets each event kind', () => {
  const adminEvents = [
    { kind: 'domain.verified', title: 'example.com is verified', link: '/domain' },
    { kind: 'domain.failed', title: 'example.com could not be verified', link: '/d-verify' },
    { kind: 'user.added', title: 'Uma User was added', link: '/users' },
    { kind: 'app.installed', title: 'Cloud storage was installed', link: '/application' },
  ];

  for (const event of adminEvents) {
    it(`${event.kind} reaches every admin of the organisation and nobody else`, async () => {
      await t.db
        .transaction()
        .execute((trx) => notifyAdmins(trx, { organizationId: orgA.id, ...event, body: 'Details' }));

      for (const admin of [orgA.admin, secondAdminA]) {
        const { items, unreadCount } = await list(admin);
        expect(unreadCount).toBe(1);
        expect(items).toEqual([
          expect.objectContaining({
            kind: event.kind,
            title: event.title,
            body: 'Details',
            link: event.link,
            read: false,
          }),
        ]);
      }
      expect((await list(memberA)).items).toEqual([]);
      expect((await list(orgB.admin)).items).toEqual([]);
    });
  }

  it('setup.steps_left reaches the admins, and a newer reminder replaces the unread one', async () => {
    await notifySetupStepsLeft(t.db, {
      organizationId: orgA.id,
      stepsLeft: ['Verify your domain', 'Add users'],
    });
    await notifySetupStepsLeft(t.db, { organizationId: orgA.id, stepsLeft: ['Add users'] });

    const { items } = await list(orgA.admin);
    expect(items.map((n) => [n.kind, n.title, n.body])).toEqual([
      ['setup.steps_left', '1 setup step left', 'Add users'],
    ]);
    expect((await list(secondAdminA)).items).toHaveLength(1);
    expect((await list(memberA)).items).toEqual([]);
    expect((await list(orgB.admin)).items).toEqual([]);

    // Nothing left: the reminder is withdrawn.
    await notifySetupStepsLeft(t.db, { organizationId: orgA.id, stepsLeft: [] });
    expect((await list(orgA.admin)).items).toEqual([]);
  });

  it('password.changed reaches only the account owner', async () => {
    await notifyUsers(t.db, [memberA.id], {
      organizationId: orgA.id,
      kind: 'password.changed',
      title: 'Your password was changed',
      link: '/profile',
    });
    expect((await list(memberA)).items.map((n) => n.kind)).toEqual(['password.changed']);
    for (const other of [orgA.admin, secondAdminA, orgB.admin]) expect((await list(other)).items).toEqual([]);
  });

  it('refuses to notify a user of another organisation, and the change rolls back with it', async () => {
    const attempt = t.db.transaction().execute(async (trx) => {
      await notifyUsers(trx, [memberA.id, orgB.admin.id], {
        organizationId: orgA.id,
        kind: 'user.added',
        title: 'Should not be delivered',
      });
    });
    await expect(attempt).rejects.toThrow(/not users of organisation/);
    expect((await list(memberA)).items).toEqual([]);
    expect((await list(orgB.admin)).items).toEqual([]);
  });

  it('a notification written in a transaction that fails is never delivered', async () => {
    const attempt = t.db.transaction().execute(async (trx) => {
      await notifyAdmins(trx, {
        organizationId: orgA.id,
        kind: 'app.installed',
        title: 'Mail was installed',
      });
      throw new Error('the install failed after notifying');
    });
    await expect(attempt).rejects.toThrow('the install failed');
    expect((await list(orgA.admin)).items).toEqual([]);
  });
});

describe('listing', () => {
  it('pages newest first by keyset, every notification exactly once, with the unread and total counts', async () => {
    // 45 notifications, three per timestamp, so ties are broken by id across page boundaries.
    await sql`insert into notifications (organization_id, user_id, kind, title, created_at)
      select ${orgA.id}, ${orgA.admin.id}, 'user.added', 'n' || i,
             timestamptz '2027-01-01 00:00:00.123456Z' + (i / 3) * interval '1 second'
      from generate_series(1, 45) as i`.execute(t.db);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(orgA.admin, `?limit=10${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.unreadCount).toBe(45);
      expect(page.totalCount).toBe(45);
      seen.push(...page.items.map((n) => n.title));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toHaveLength(45);
    expect(new Set(seen).size).toBe(45);
  });

  it('orders by time, newest first', async () => {
    const titles = ['first', 'second', 'third'];
    for (const [i, title] of titles.entries()) {
      await notifyUsers(t.db, [memberA.id], { organizationId: orgA.id, kind: 'user.added', title });
      // A minute apart: the embedded database's clock can give two quick inserts the same time.
      await t.db
        .updateTable('notifications')
        .set({ created_at: new Date(Date.now() - (titles.length - i) * 60_000) })
        .where('user_id', '=', memberA.id)
        .where('title', '=', title)
        .execute();
    }
    expect((await list(memberA)).items.map((n) => n.title)).toEqual(['third', 'second', 'first']);
  });

  it('says which parameter is wrong', async () => {
    const session = await sessionOf(memberA);
    const badCursor = await t.app.inject({
      url: '/api/notifications?cursor=nonsense',
      headers: session.headers,
    });
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.json().error.fields).toEqual({ cursor: expect.stringContaining('not valid') });
    const badLimit = await t.app.inject({ url: '/api/notifications?limit=1000', headers: session.headers });
    expect(badLimit.statusCode).toBe(400);
    expect(Object.keys(badLimit.json().error.fields)).toEqual(['limit']);
  });

  it('needs a signed-in caller', async () => {
    expect((await t.app.inject('/api/notifications')).statusCode).toBe(401);
    const res = await t.app.inject({ method: 'DELETE', url: '/api/notifications' });
    expect(res.statusCode).toBe(401);
  });
});

describe('mark as read and clear all change only the caller’s notifications', () => {
  beforeEach(async () => {
    await notifyAdmins(t.db, {
      organizationId: orgA.id,
      kind: 'domain.verified',
      title: 'a.example is verified',
    });
    await notifyAdmins(t.db, { organizationId: orgA.id, kind: 'app.installed', title: 'Chat was installed' });
    await notifyAdmins(t.db, {
      organizationId: orgB.id,
      kind: 'domain.verified',
      title: 'b.example is verified',
    });
  });

  it('marks one read', async () => {
    const [newest, older] = (await list(orgA.admin)).items;
    const res = await send(orgA.admin, 'POST', `/api/notifications/${older!.id}/read`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ unreadCount: 1 });

    const after = await list(orgA.admin);
    expect(after.items.map((n) => [n.id, n.read])).toEqual([
      [newest!.id, false],
      [older!.id, true],
    ]);
    expect((await list(secondAdminA)).unreadCount).toBe(2);
    expect((await list(orgB.admin)).unreadCount).toBe(1);
  });

  it('answers "not found" for someone else’s notification, in or outside the organisation, and changes nothing', async () => {
    const colleagues = (await list(secondAdminA)).items[0]!;
    const otherOrgs = (await list(orgB.admin)).items[0]!;
    for (const id of [colleagues.id, otherOrgs.id, '7d7f1c0e-2f4b-4c3a-9a57-3f1f1f1f1f1f']) {
      const res = await send(orgA.admin, 'POST', `/api/notifications/${id}/read`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    expect((await list(secondAdminA)).unreadCount).toBe(2);
    expect((await list(orgB.admin)).unreadCount).toBe(1);
  });

  it('rejects an id that is not one', async () => {
    const res = await send(orgA.admin, 'POST', '/api/notifications/42/read');
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().error.fields)).toEqual(['id']);
  });

  it('marks all read', async () => {
    const res = await send(orgA.admin, 'POST', '/api/notifications/read-all');
    expect(res.json()).toEqual({ unreadCount: 0 });
    const mine = await list(orgA.admin);
    expect(mine.unreadCount).toBe(0);
    expect(mine.items.every((n) => n.read)).toBe(true);
    expect((await list(secondAdminA)).unreadCount).toBe(2);
    expect((await list(orgB.admin)).unreadCount).toBe(1);
  });

  it('clears all', async () => {
    const res = await send(orgA.admin, 'DELETE', '/api/notifications');
    expect(res.json()).toEqual({ deleted: 2 });
    expect(await list(orgA.admin)).toEqual({ items: [], nextCursor: null, unreadCount: 0, totalCount: 0 });
    expect((await list(secondAdminA)).items).toHaveLength(2);
    expect((await list(orgB.admin)).items).toHaveLength(1);
  });

  it('refuses state changes without the CSRF token', async () => {
    const { cookie } = await sessionOf(orgA.admin);
    for (const [method, url] of [
      ['POST', '/api/notifications/read-all'],
      ['DELETE', '/api/notifications'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { cookie } });
      expect(res.statusCode).toBe(403);
    }
    expect((await list(orgA.admin)).unreadCount).toBe(2);
  });
});
