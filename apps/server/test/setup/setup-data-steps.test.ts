import { SETUP_STEP_NOT_DONE } from '@atrium/contracts/setup';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertSetupRecord } from '../../src/modules/setup/setup.repository.ts';
import { createUser } from '../support/fixtures.ts';
import { useAdminWorld } from '../support/admin-world.ts';

const server = useAdminWorld();

beforeAll(async () => {
  await insertSetupRecord(server.db, server.org.id);
});

const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  server.app.inject({ method, url, headers: server.adminSession.headers, ...(payload && { payload }) });
const mark = (step: string, outcome: 'done' | 'skipped') =>
  call('POST', `/api/setup/steps/${step}`, { outcome });
const openSteps = async () => (await call('GET', '/api/dashboard')).json().setup.openSteps;

async function insertDomain(name: string, state: 'pending' | 'verified') {
  await server.db
    .insertInto('domains')
    .values({
      organization_id: server.org.id,
      name,
      state,
      verification_token: `token-${name}`,
      dkim_private_key_enc: 'sealed',
      dkim_public_key: 'public',
    })
    .execute();
}

describe('setup steps judged from the data', () => {
  it('marking "domain" done with no domain is refused and does not make it done', async () => {
    await mark('profile', 'done');
    const response = await mark('domain', 'done');
    expect(response.statusCode).toBe(409);
    expect(response.json().error).toEqual({ code: SETUP_STEP_NOT_DONE, message: 'Add a domain first.' });
    expect((await call('GET', '/api/setup')).json()).toMatchObject({
      currentStep: 'domain',
      done: ['profile'],
      skipped: [],
    });
    expect(await openSteps()).toEqual(['domain', 'verify', 'users', 'apps']);
    // Nor can the wizard be moved past it.
    const jump = await call('POST', '/api/setup/steps/verify', { outcome: 'skipped' });
    expect(jump.json().error.fields).toEqual({ currentStep: 'Finish “Add a domain” first' });
  });

  it('"domain" is done once the organisation has a domain, and "verify" only once one is verified', async () => {
    await insertDomain('data-steps.example', 'pending');
    // Done without being marked: the data says so.
    expect((await call('GET', '/api/setup')).json().done).toEqual(['profile', 'domain']);
    expect((await mark('domain', 'done')).json()).toMatchObject({ currentStep: 'verify' });
    const verify = await mark('verify', 'done');
    expect(verify.statusCode).toBe(409);
    expect(verify.json().error).toEqual({
      code: SETUP_STEP_NOT_DONE,
      message: 'None of your domains is verified yet. Verify one, or choose “Verify later”.',
    });
    const later = await mark('verify', 'skipped');
    expect(later.json()).toMatchObject({
      currentStep: 'users',
      done: ['profile', 'domain'],
      skipped: ['verify'],
    });
    expect(await openSteps()).toEqual(['verify', 'users', 'apps']);
  });

  it('"users" needs a second user (a co-admin counts), or an explicit skip, which the checklist keeps', async () => {
    const refused = await mark('users', 'done');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toBe('Add a user first, or skip this step for now.');
    const skipped = await mark('users', 'skipped');
    expect(skipped.json()).toMatchObject({ currentStep: 'apps', skipped: ['verify', 'users'] });
    expect(await openSteps()).toEqual(['verify', 'users', 'apps']);

    const coAdmin = await createUser(server.db, server.org.id);
    await server.db
      .insertInto('group_members')
      .values({ group_id: server.org.dashboardGroupId, user_id: coAdmin.id, organization_id: server.org.id })
      .execute();
    expect((await call('GET', '/api/setup')).json()).toMatchObject({
      done: ['profile', 'domain', 'users'],
      skipped: ['verify'],
    });
    expect(await openSteps()).toEqual(['verify', 'apps']);
  });

  it('a domain verified after "verify later" closes the step in the wizard and on the checklist', async () => {
    await insertDomain('verified-later.example', 'verified');
    expect((await call('GET', '/api/setup')).json()).toMatchObject({
      done: ['profile', 'domain', 'verify', 'users'],
      skipped: [],
    });
    expect(await openSteps()).toEqual(['apps']);
  });
});
