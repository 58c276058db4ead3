import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAppsForUser } from '../../src/modules/apps/list-apps-for-user.ts';
import { createOrganization } from '../../src/modules/organizations/create-organization.ts';
import { createUser, signInAs, type TestUser } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { createGroup, installBody } from './helpers.ts';

let t: TestApp;
let organizationId: string;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp({ env: { SITE_BASE_DOMAIN: 'atrium.example' } });
  const created = await createOrganization(t.db, t.config, {
    name: 'Globex',
    siteName: 'globex',
    admin: { email: 'hank@globex.example', firstName: 'Hank', lastName: 'Scorpio', passwordHash: null },
  });
  organizationId = created.organizationId;
  admin = { id: created.adminUserId, email: 'hank@globex.example', organizationId };
});
afterAll(() => t.close());

describe('a new organisation', () => {
  it('starts with the cloud-storage app, opening its site, for everyone', async () => {
    const session = await signInAs(t.db, admin);
    const res = await t.app.inject({ method: 'GET', url: '/api/apps', headers: session.headers });
    expect(res.json().apps).toMatchObject([
      {
        templateKey: 'cloud-storage',
        title: 'Cloud Storage',
        launchUrl: 'https://globex.atrium.example',
        image: '/apps/cloud-storage.svg',
        openToEveryone: true,
        groups: [],
      },
    ]);
    const detail = await t.app.inject({
      method: 'GET',
      url: `/api/apps/${res.json().apps[0].id}`,
      headers: session.headers,
    });
    expect(detail.json().app.redirectUris).toEqual(['https://globex.atrium.example/apps/user_oidc/code']);
    expect(detail.json().app.configSnippet).toContain('php occ user_oidc:provider Atrium');
    expect(detail.json().app.tokenEndpointAuthMethod).toBe('client_secret_post');
  });
});

describe('the user-applications call', () => {
  let member: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    member = await createUser(t.db, organizationId, { firstName: 'Marge' });
    outsider = await createUser(t.db, organizationId, { firstName: 'Otto' });
    const sales = await createGroup(t.db, organizationId, 'Sales', [member.id]);
    await createGroup(t.db, organizationId, 'Admins of nothing', [member.id]);
    const session = await signInAs(t.db, admin);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/apps',
      headers: session.headers,
      payload: installBody({
        title: 'Accounts',
        templateKey: 'custom',
        openToEveryone: false,
        groupIds: [sales],
      }),
    });
    expect(res.statusCode).toBe(201);
  });

  it("returns the member's groups, the site name and exactly their apps as App menu items", async () => {
    const session = await signInAs(t.db, member);
    const res = await t.app.inject({ method: 'GET', url: '/api/me/applications', headers: session.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('Success');
    expect(body.site_name).toBe('globex');
    expect(body.groups).toEqual({ groups: [{ name: 'Admins of nothing' }, { name: 'Sales' }] });
    expect(body.apps.map((a: { title: string }) => a.title)).toEqual(['Accounts', 'Cloud Storage']);
    const accounts = body.apps[0];
    expect(Object.keys(accounts).sort()).toEqual([
      'alt',
      'app_id',
      'color',
      'id',
      'image',
      'title',
      'url',
      'value',
    ]);
    expect(accounts).toMatchObject({
      title: 'Accounts',
      value: 'custom',
      image: '/apps/custom.svg',
      alt: 'Accounts',
      color: '#64748b',
      url: 'https://wiki.example.com',
    });
  });

  it('leaves out apps of groups the user is not in', async () => {
    const session = await signInAs(t.db, outsider);
    const res = await t.app.inject({ method: 'GET', url: '/api/me/applications', headers: session.headers });
    expect(res.json().groups).toEqual({ groups: [] });
    expect(res.json().apps.map((a: { title: string }) => a.title)).toEqual(['Cloud Storage']);
  });

  it('gives a suspended user and another organisation nothing (listAppsForUser)', async () => {
    await t.db.updateTable('users').set({ status: 'suspended' }).where('id', '=', outsider.id).execute();
    expect(await listAppsForUser(t.db, organizationId, outsider.id)).toEqual([]);
    const other = await createOrganization(t.db, t.config, {
      name: 'Initech',
      siteName: 'initech',
      admin: { email: 'bill@initech.example', firstName: 'Bill', lastName: 'L', passwordHash: null },
    });
    // A user of another organisation asking about this one gets nothing, not even its cloud storage.
    expect(await listAppsForUser(t.db, organizationId, other.adminUserId)).toEqual([]);
    expect(
      (await listAppsForUser(t.db, other.organizationId, other.adminUserId)).map((a) => a.title),
    ).toEqual(['Cloud Storage']);
    const apps = await listAppsForUser(t.db, organizationId, member.id);
    expect(apps.map((a) => a.title)).toEqual(['Accounts', 'Cloud Storage']);
  });

  it('needs a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/me/applications' });
    expect(res.statusCode).toBe(401);
  });
});
