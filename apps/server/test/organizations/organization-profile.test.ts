import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let server: TestApp;
let admin: TestSession;
let member: TestSession;
let otherAdmin: TestSession;
let organizationId: string;

beforeAll(async () => {
  server = await createTestApp({ env: { SITE_BASE_DOMAIN: 'atrium.test' } });
  const org = await createOrganizationWithAdmin(server.db, { siteName: 'profiled' });
  organizationId = org.id;
  admin = await signInAs(server.db, org.admin);
  member = await signInAs(server.db, await createUser(server.db, org.id));
  otherAdmin = await signInAs(server.db, (await createOrganizationWithAdmin(server.db)).admin);
});

afterAll(async () => {
  await server?.close();
});

const valid = {
  name: 'Profiled Ltd',
  legalName: 'Profiled Holdings Limited',
  industry: 'Information technology',
  size: '11-50',
  country: 'GB',
  timeZone: 'Europe/London',
};

const put = (session: TestSession, payload: object) =>
  server.app.inject({ method: 'PUT', url: '/api/organization', headers: session.headers, payload });

describe('organisation profile', () => {
  it('shows the profile with the site name and its URL', async () => {
    const response = await server.app.inject({ url: '/api/organization', headers: admin.headers });
    expect(response.json()).toEqual({
      id: organizationId,
      name: 'Org profiled',
      legalName: null,
      industry: null,
      size: null,
      country: null,
      timeZone: null,
      siteName: 'profiled',
      siteUrl: 'https://profiled.atrium.test',
    });
  });

  it('saves every field, keeps the site name, and records who changed it', async () => {
    const response = await put(admin, { ...valid, siteName: 'hijacked' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ ...valid, siteName: 'profiled' });
    const again = await server.app.inject({ url: '/api/organization', headers: admin.headers });
    expect(again.json()).toMatchObject(valid);
    const activity = await server.db
      .selectFrom('activity_log')
      .select(['action', 'target_label'])
      .where('organization_id', '=', organizationId)
      .execute();
    expect(activity).toEqual([{ action: 'organization.updated', target_label: 'Profiled Ltd' }]);
  });

  it('clears optional fields given as empty', async () => {
    const response = await put(admin, {
      name: 'Profiled Ltd',
      legalName: '',
      industry: '',
      size: '',
      country: '',
      timeZone: '',
    });
    expect(response.json()).toMatchObject({
      legalName: null,
      industry: null,
      size: null,
      country: null,
      timeZone: null,
    });
  });

  it('answers bad input with a message per field', async () => {
    const response = await put(admin, {
      name: ' ',
      legalName: 'x'.repeat(201),
      industry: 'Alchemy',
      size: 'huge',
      country: 'XX',
      timeZone: 'Mars/Olympus',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.fields).toEqual({
      name: 'Enter your organisation’s name',
      legalName: 'Use at most 200 characters',
      industry: 'Choose an industry from the list',
      size: 'Choose a size from the list',
      country: 'Choose a country from the list',
      timeZone: 'Choose a time zone from the list, e.g. Europe/Paris',
    });
  });

  it('is for admins only, each only ever sees their own organisation', async () => {
    expect((await server.app.inject({ url: '/api/organization', headers: member.headers })).statusCode).toBe(
      403,
    );
    expect((await put(member, valid)).statusCode).toBe(403);
    const other = await server.app.inject({ url: '/api/organization', headers: otherAdmin.headers });
    expect(other.json().id).not.toBe(organizationId);
    await put(otherAdmin, { ...valid, name: 'Someone else' });
    const mine = await server.app.inject({ url: '/api/organization', headers: admin.headers });
    expect(mine.json().name).toBe('Profiled Ltd');
  });
});
