import { beforeAll, describe, expect, it } from 'vitest';
import { insertSetupRecord } from '../../src/modules/setup/setup.repository.ts';
import { useAdminWorld } from '../support/admin-world.ts';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';

const server = useAdminWorld();
let member: TestSession;
let otherAdmin: TestSession;
let legacyAdmin: TestSession;

beforeAll(async () => {
  await insertSetupRecord(server.db, server.org.id);
  const other = await createOrganizationWithAdmin(server.db);
  await insertSetupRecord(server.db, other.id);
  otherAdmin = await signInAs(server.db, other.admin);
  // Made without sign-up (operator command, fixtures): no setup record, no wizard.
  const legacy = await createOrganizationWithAdmin(server.db);
  legacyAdmin = await signInAs(server.db, legacy.admin);
  // A member of the organisations with a wizard would already count as "Add users" done.
  member = await signInAs(server.db, await createUser(server.db, legacy.id));
});

const call = (session: TestSession, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
  server.app.inject({ method, url, headers: session.headers, ...(payload && { payload }) });

describe('setup progress', () => {
  it('starts at the organisation profile with nothing done ("admin-setup login status")', async () => {
    const response = await call(server.adminSession, 'GET', '/api/setup');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      currentPage: '/setup',
      currentStep: 'profile',
      done: [],
      skipped: [],
      previousPage: null,
      nextPage: 'domain',
      showBottom: true,
      completed: false,
      completedAt: null,
    });
  });

  it('is for admins only, and a session is needed', async () => {
    expect((await call(member, 'GET', '/api/setup')).statusCode).toBe(403);
    expect((await server.app.inject({ url: '/api/setup' })).statusCode).toBe(401);
    const noCsrf = await server.app.inject({
      method: 'POST',
      url: '/api/setup/steps/profile',
      headers: { cookie: server.adminSession.cookie },
      payload: { outcome: 'done' },
    });
    expect(noCsrf.statusCode).toBe(403);
  });

  it('refuses to skip a step that cannot be skipped, and to jump past an open step', async () => {
    const skip = await call(server.adminSession, 'POST', '/api/setup/steps/profile', { outcome: 'skipped' });
    expect(skip.statusCode).toBe(400);
    expect(skip.json().error.fields).toEqual({ outcome: '“Organization profile” cannot be skipped' });
    const jump = await call(server.adminSession, 'PUT', '/api/setup/progress', { currentStep: 'users' });
    expect(jump.statusCode).toBe(400);
    expect(jump.json().error.fields).toEqual({ currentStep: 'Finish “Organization profile” first' });
    const early = await call(server.adminSession, 'POST', '/api/setup/complete', {});
    expect(early.json().error.fields).toEqual({ currentStep: 'Finish “Organization profile” first' });
  });

  it('keeps each organisation’s progress apart', async () => {
    const done = await call(server.adminSession, 'POST', '/api/setup/steps/profile', { outcome: 'done' });
    expect(done.json()).toMatchObject({ currentStep: 'domain', done: ['profile'], previousPage: 'profile' });
    expect((await call(otherAdmin, 'GET', '/api/setup')).json()).toMatchObject({
      currentStep: 'profile',
      done: [],
    });
  });

  it('walks the steps, with "verify later" and skipped users, goes back, and finishes', async () => {
    // "Add a domain" is judged from the data: the organisation needs a domain (still pending).
    await server.db
      .insertInto('domains')
      .values({
        organization_id: server.org.id,
        name: 'progress.example',
        verification_token: 'token',
        dkim_private_key_enc: 'sealed',
        dkim_public_key: 'public',
      })
      .execute();
    expect(
      (await call(server.adminSession, 'POST', '/api/setup/steps/domain', { outcome: 'done' })).statusCode,
    ).toBe(200);
    const later = await call(server.adminSession, 'POST', '/api/setup/steps/verify', { outcome: 'skipped' });
    expect(later.json()).toMatchObject({ currentStep: 'users', skipped: ['verify'] });
    // A reload asks again and lands on the same step.
    expect((await call(server.adminSession, 'GET', '/api/setup')).json().currentStep).toBe('users');
    const back = await call(server.adminSession, 'PUT', '/api/setup/progress', { currentStep: 'domain' });
    expect(back.json()).toMatchObject({ currentStep: 'domain', nextPage: 'verify' });
    await call(server.adminSession, 'PUT', '/api/setup/progress', { currentStep: 'users' });
    await call(server.adminSession, 'POST', '/api/setup/steps/users', { outcome: 'skipped' });
    const apps = await call(server.adminSession, 'POST', '/api/setup/steps/apps', { outcome: 'done' });
    expect(apps.json()).toMatchObject({ currentStep: 'finish', showBottom: false, nextPage: null });
    const finished = await call(server.adminSession, 'POST', '/api/setup/complete', {});
    expect(finished.statusCode).toBe(200);
    expect(finished.json()).toMatchObject({
      completed: true,
      done: ['profile', 'domain', 'apps'],
      skipped: ['verify', 'users'],
    });
    expect(Date.parse(finished.json().completedAt)).not.toBeNaN();
  });

  it('records the completion and tells the admins which skipped steps are left', async () => {
    const activity = await server.db
      .selectFrom('activity_log')
      .select(['action', 'actor_label'])
      .where('organization_id', '=', server.org.id)
      .execute();
    expect(activity).toEqual([{ action: 'setup.completed', actor_label: 'Ada Admin' }]);
    const notes = await server.db
      .selectFrom('notifications')
      .select(['title', 'body'])
      .where('organization_id', '=', server.org.id)
      .execute();
    expect(notes).toEqual([{ title: '2 setup steps left', body: 'Verify your domain · Add users' }]);
  });

  it('an organisation made without sign-up has no wizard', async () => {
    expect((await call(legacyAdmin, 'GET', '/api/setup')).json()).toMatchObject({ completed: true });
    const move = await call(legacyAdmin, 'POST', '/api/setup/steps/profile', { outcome: 'done' });
    expect(move.statusCode).toBe(409);
  });
});
