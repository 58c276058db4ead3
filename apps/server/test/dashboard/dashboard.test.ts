import { beforeAll, describe, expect, it } from 'vitest';
import { recordActivity } from '../../src/modules/activity/activity.repository.ts';
import { insertSetupRecord, saveSetupRecord } from '../../src/modules/setup/setup.repository.ts';
import { useAdminWorld } from '../support/admin-world.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';

const server = useAdminWorld();
let member: TestSession;
let otherAdmin: TestSession;

beforeAll(async () => {
  const { org } = server;
  const plain = await createUser(server.db, org.id);
  member = await signInAs(server.db, plain);
  const invited = await createUser(server.db, org.id);
  const suspended = await createUser(server.db, org.id);
  await server.db.updateTable('users').set({ status: 'invited' }).where('id', '=', invited.id).execute();
  await server.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', suspended.id).execute();
  await server.db
    .insertInto('domains')
    .values(
      (['verified', 'pending', 'pending', 'failed'] as const).map((state, i) => ({
        organization_id: org.id,
        name: `d${i}.example.com`,
        state,
        verification_token: `token${i}`,
        dkim_private_key_enc: 'sealed',
        dkim_public_key: 'public',
      })),
    )
    .execute();
  await insertSetupRecord(server.db, org.id);
  await saveSetupRecord(server.db, org.id, {
    currentStep: 'users',
    done: ['profile', 'domain'],
    skipped: ['verify'],
  });
  // Written with distinct times: entries of one instant have no meaningful order.
  const start = Date.now() - 60_000;
  await server.db
    .insertInto('activity_log')
    .values(
      Array.from({ length: 12 }, (_, i) => ({
        organization_id: org.id,
        actor_user_id: org.admin.id,
        actor_label: 'Ada Admin',
        action: 'user.created',
        target_type: 'user',
        target_id: String(i),
        target_label: `User ${i}`,
        created_at: new Date(start + i * 1000),
      })),
    )
    .execute();
  // Another organisation's rows must not count.
  const other = await createOrganizationWithAdmin(server.db);
  otherAdmin = await signInAs(server.db, other.admin);
  await createUser(server.db, other.id);
  await recordActivity(server.db, {
    organizationId: other.id,
    actor: null,
    action: 'domain.verified',
    target: { type: 'domain', id: 'x', label: 'other.example' },
  });
});

describe('admin home', () => {
  it('shows open setup steps, counts of this organisation and the 10 newest activities', async () => {
    const response = await server.app.inject({ url: '/api/dashboard', headers: server.adminSession.headers });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    // "verify" was left for later, but d0.example.com is verified and members exist: only apps is open.
    expect(body.setup).toEqual({ completed: false, openSteps: ['apps'], mailSteps: [] });
    expect(body.counts).toEqual({
      users: { total: 4, active: 2, invited: 1, suspended: 1 },
      domains: { total: 4, verified: 1, pending: 2, failed: 1 },
      groups: 1,
      apps: 0,
      // Every user holds a seat; the fixture's subscription has 1000.
      seats: { used: 4, bought: 1000 },
    });
    expect(body.recentActivity).toHaveLength(10);
    expect(body.recentActivity.map((a: { targetLabel: string }) => a.targetLabel)).toEqual(
      Array.from({ length: 10 }, (_, i) => `User ${11 - i}`),
    );
    expect(body.recentActivity[0]).toMatchObject({
      actorLabel: 'Ada Admin',
      action: 'user.created',
      targetType: 'user',
    });
  });

  it('an organisation without a wizard has an empty checklist', async () => {
    const body = (await server.app.inject({ url: '/api/dashboard', headers: otherAdmin.headers })).json();
    expect(body.setup).toEqual({ completed: true, openSteps: [], mailSteps: [] });
    expect(body.counts.users.total).toBe(2);
    expect(body.recentActivity.map((a: { action: string }) => a.action)).toEqual(['domain.verified']);
  });

  it('is for admins only', async () => {
    expect((await server.app.inject({ url: '/api/dashboard', headers: member.headers })).statusCode).toBe(
      403,
    );
  });
});
