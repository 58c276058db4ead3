import { beforeAll, describe, expect, it } from 'vitest';
import { createOrganizationWithAdmin, createUser, signInAs, type TestSession } from '../support/fixtures.ts';
import { createGroup, installBody } from './helpers.ts';
import { useAdminWorld } from '../support/admin-world.ts';

const t = useAdminWorld({ org: { siteName: 'acme' } });
let staffGroupId: string;

beforeAll(async () => {
  staffGroupId = await createGroup(t.db, t.org.id, 'Staff');
});
const install = (session: TestSession, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/apps', headers: session.headers, payload: body });

describe('catalog (available apps)', () => {
  it('lists the built-in templates with the organisation site filled in for cloud storage', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/apps/catalog',
      headers: t.adminSession.headers,
    });
    expect(res.statusCode).toBe(200);
    const templates = res.json().templates as {
      key: string;
      launchUrl: string;
      redirectUriTemplates: string[];
    }[];
    expect(templates.map((x) => x.key)).toContain('project-management');
    const storage = templates.find((x) => x.key === 'cloud-storage')!;
    expect(storage.launchUrl).toBe(`https://acme.${t.config.siteBaseDomain}`);
    expect(storage.redirectUriTemplates).toEqual(['{launchUrl}/apps/user_oidc/code']);
  });

  it('gives each template the settings its app needs before installing, with placeholders for the client', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/apps/catalog',
      headers: t.adminSession.headers,
    });
    const wiki = (res.json().templates as Record<string, string>[]).find((x) => x.key === 'wiki')!;
    expect(wiki.setupInstructions).toContain("BookStack's .env");
    expect(wiki.issuer).toBe(new URL('/oidc', t.config.publicUrl).href);
    expect(wiki.discoveryUrl).toBe(`${wiki.issuer}/.well-known/openid-configuration`);
    expect(wiki.tokenEndpointAuthMethod).toBe('client_secret_post');
    expect(wiki.configSnippetLanguage).toBe('env');
    expect(wiki.configSnippet).toContain(`OIDC_ISSUER=${wiki.issuer}`);
    expect(wiki.configSnippet).toContain('OIDC_CLIENT_ID=<client ID: shown after install>');
    expect(wiki.configSnippet).toContain('OIDC_CLIENT_SECRET=<client secret: shown once after install>');
  });

  it('is for admins only', async () => {
    const user = await signInAs(t.db, await createUser(t.db, t.org.id));
    const res = await t.app.inject({ method: 'GET', url: '/api/apps/catalog', headers: user.headers });
    expect(res.statusCode).toBe(403);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/apps' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('install', () => {
  it('registers an OIDC client, shows the secret once, and records it', async () => {
    const res = await install(
      t.adminSession,
      installBody({ openToEveryone: false, groupIds: [staffGroupId] }),
    );
    expect(res.statusCode).toBe(201);
    const { app, clientSecret } = res.json();
    expect(clientSecret).toMatch(/^[\w-]{40,}$/);
    expect(app.issuer).toBe(new URL('/oidc', t.config.publicUrl).href);
    expect(app.discoveryUrl).toBe(`${app.issuer}/.well-known/openid-configuration`);
    expect(app.configSnippet).toContain(`OIDC_CLIENT_SECRET=${clientSecret}`);
    expect(app.configSnippet).toContain(`OIDC_CLIENT_ID=${app.clientId}`);
    expect(app.groups).toEqual([{ id: staffGroupId, name: 'Staff' }]);
    expect(app.redirectUris).toEqual(['https://wiki.example.com/oidc/callback']);

    const client = await t.db
      .selectFrom('oidc_clients')
      .selectAll()
      .where('client_id', '=', app.clientId)
      .executeTakeFirstOrThrow();
    expect(client.organization_id).toBe(t.org.id);
    expect(client.client_secret_enc).not.toContain(clientSecret);
    expect(client.metadata).toMatchObject({
      client_name: 'Wiki',
      redirect_uris: ['https://wiki.example.com/oidc/callback'],
    });

    // Read again later: the secret is gone for good.
    const again = await t.app.inject({
      method: 'GET',
      url: `/api/apps/${app.id}`,
      headers: t.adminSession.headers,
    });
    expect(again.statusCode).toBe(200);
    expect(again.body).not.toContain(clientSecret);
    expect(again.json().app.configSnippet).toContain('OIDC_CLIENT_SECRET=<client secret: shown once');

    const activity = await t.db
      .selectFrom('activity_log')
      .selectAll()
      .where('target_id', '=', app.id)
      .execute();
    expect(activity.map((a) => [a.action, a.actor_label])).toEqual([['app.installed', 'Ada Admin']]);
    const notes = await t.db
      .selectFrom('notifications')
      .selectAll()
      .where('kind', '=', 'app.installed')
      .execute();
    expect(notes.map((n) => [n.user_id, n.title, n.link])).toEqual([
      [t.org.admin.id, 'Wiki was installed', `/apps/${app.id}`],
    ]);
  });

  it('refuses an app that is not in the catalog, no groups, and unknown groups', async () => {
    const unknown = await install(t.adminSession, installBody({ templateKey: 'nope' }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.fields).toEqual({ templateKey: 'This app is not in the catalog' });
    const noGroups = await install(t.adminSession, installBody({ openToEveryone: false, groupIds: [] }));
    expect(noGroups.json().error.fields.groupIds).toBe(
      'Choose at least one group, or open the app to everyone',
    );
    const other = await createOrganizationWithAdmin(t.db);
    const foreign = await install(
      t.adminSession,
      installBody({ openToEveryone: false, groupIds: [other.dashboardGroupId] }),
    );
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().error.fields.groupIds).toMatch(/does not exist/);
  });

  it('refuses a launch URL that is not https (a tile must never run script)', async () => {
    for (const launchUrl of ['javascript:alert(1)', 'http://wiki.example.com', 'data:text/html,hi', 'wiki']) {
      const res = await install(t.adminSession, installBody({ launchUrl }));
      expect(res.statusCode, launchUrl).toBe(400);
      expect(Object.keys(res.json().error.fields)).toEqual(['launchUrl']);
    }
  });

  describe('redirect URIs', () => {
    const refused: [string, string][] = [
      ['http://wiki.example.com/cb', 'Use https:// (http:// is allowed only for localhost and 127.0.0.1)'],
      ['https://*.example.com/cb', 'Wildcards are not allowed; enter the exact redirect URI'],
      ['https://wiki.example.com/*', 'Wildcards are not allowed; enter the exact redirect URI'],
      ['https://wiki.example.com/cb#done', 'A redirect URI cannot contain a fragment (#)'],
      ['/oidc/callback', 'Enter an absolute URL, e.g. https://app.example.com/callback'],
      ['javascript:alert(1)', 'Use an https:// URL'],
      ['ftp://wiki.example.com/cb', 'Use an https:// URL'],
      ['https://user:pw@wiki.example.com/cb', 'A redirect URI cannot contain a user name or password'],
      ['http://localhost.evil.com/cb', 'Use https:// (http:// is allowed only for localhost and 127.0.0.1)'],
    ];
    it.each(refused)('refuses %s', async (uri, message) => {
      const res = await install(
        t.adminSession,
        installBody({ redirectUris: ['https://wiki.example.com/ok', uri] }),
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().error.fields).toEqual({ 'redirectUris.1': message });
    });

    it('refuses the same URI twice and an empty list', async () => {
      const twice = await install(
        t.adminSession,
        installBody({ redirectUris: ['https://a.example.com/cb', 'https://a.example.com/cb'] }),
      );
      expect(twice.json().error.fields).toEqual({ 'redirectUris.1': 'This redirect URI is listed twice' });
      const none = await install(t.adminSession, installBody({ redirectUris: [] }));
      expect(none.json().error.fields).toEqual({ redirectUris: 'Add at least one redirect URI' });
    });

    it('accepts https, and http only on localhost and 127.0.0.1, stored exactly', async () => {
      const uris = [
        'https://wiki.example.com/cb?x=1',
        'http://localhost:3000/cb',
        'http://127.0.0.1:8123/callback',
      ];
      const res = await install(t.adminSession, installBody({ redirectUris: uris }));
      expect(res.statusCode).toBe(201);
      expect(res.json().app.redirectUris).toEqual(uris);
    });

    it('applies the same rules when an app is changed', async () => {
      const { app } = (await install(t.adminSession, installBody())).json();
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/apps/${app.id}`,
        headers: t.adminSession.headers,
        payload: { ...installBody(), redirectUris: ['http://wiki.example.com/cb'] },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.fields).toEqual({
        'redirectUris.0': 'Use https:// (http:// is allowed only for localhost and 127.0.0.1)',
      });
    });
  });
});

describe('an installed app', () => {
  it('changes its groups and redirect URIs, and rotates its secret', async () => {
    const { app } = (
      await install(t.adminSession, installBody({ title: 'Chat', templateKey: 'chat' }))
    ).json();
    const changed = await t.app.inject({
      method: 'PUT',
      url: `/api/apps/${app.id}`,
      headers: t.adminSession.headers,
      payload: {
        ...installBody({ title: 'Team chat' }),
        openToEveryone: false,
        groupIds: [staffGroupId],
        redirectUris: ['https://chat.example.com/_oauth/atrium'],
      },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().app).toMatchObject({
      title: 'Team chat',
      openToEveryone: false,
      groups: [{ id: staffGroupId, name: 'Staff' }],
      redirectUris: ['https://chat.example.com/_oauth/atrium'],
    });
    const metadata = (
      await t.db
        .selectFrom('oidc_clients')
        .select('metadata')
        .where('client_id', '=', app.clientId)
        .executeTakeFirstOrThrow()
    ).metadata;
    expect(metadata).toMatchObject({
      client_name: 'Team chat',
      redirect_uris: ['https://chat.example.com/_oauth/atrium'],
      // Fixed at install by the template and kept by changes.
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code', 'refresh_token'],
    });

    const before = await t.db
      .selectFrom('oidc_clients')
      .select('client_secret_enc')
      .where('client_id', '=', app.clientId)
      .executeTakeFirstOrThrow();
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/apps/${app.id}/secret`,
      headers: t.adminSession.headers,
    });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().app.configSnippet).toContain(`Secret:         ${rotated.json().clientSecret}`);
    const after = await t.db
      .selectFrom('oidc_clients')
      .select('client_secret_enc')
      .where('client_id', '=', app.clientId)
      .executeTakeFirstOrThrow();
    expect(after.client_secret_enc).not.toBe(before.client_secret_enc);
  });

  it('registers post-logout redirect URIs: the template default, the admin’s list, and the same rules', async () => {
    const clientMetadata = async (clientId: string) =>
      (
        await t.db
          .selectFrom('oidc_clients')
          .select('metadata')
          .where('client_id', '=', clientId)
          .executeTakeFirstOrThrow()
      ).metadata;
    // Left out: the template's default, the launch URL.
    const { app } = (
      await install(t.adminSession, installBody({ title: 'Custom', templateKey: 'custom' }))
    ).json();
    expect(app.postLogoutRedirectUris).toEqual(['https://wiki.example.com/']);
    expect(app.configSnippet).toContain('OIDC_POST_LOGOUT_REDIRECT_URI=https://wiki.example.com/');
    expect(app.configSnippet).toContain(`OIDC_END_SESSION_ENDPOINT=${app.issuer}/session/end`);
    expect(await clientMetadata(app.clientId)).toMatchObject({
      post_logout_redirect_uris: ['https://wiki.example.com/'],
    });

    const chosen = ['https://wiki.example.com/logged-out', 'http://localhost:8080/bye'];
    const changed = await t.app.inject({
      method: 'PUT',
      url: `/api/apps/${app.id}`,
      headers: t.adminSession.headers,
      payload: { ...installBody({ title: 'Custom' }), postLogoutRedirectUris: chosen },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().app.postLogoutRedirectUris).toEqual(chosen);
    expect(await clientMetadata(app.clientId)).toMatchObject({ post_logout_redirect_uris: chosen });

    // A change that leaves them out keeps them; an empty list registers none.
    const kept = await t.app.inject({
      method: 'PUT',
      url: `/api/apps/${app.id}`,
      headers: t.adminSession.headers,
      payload: installBody({ title: 'Custom' }),
    });
    expect(kept.json().app.postLogoutRedirectUris).toEqual(chosen);
    const none = await install(
      t.adminSession,
      installBody({ title: 'No logout', postLogoutRedirectUris: [] }),
    );
    expect(none.json().app.postLogoutRedirectUris).toEqual([]);

    for (const uri of ['https://*.example.com/', 'http://wiki.example.com/', 'https://wiki.example.com/#x']) {
      const refused = await install(t.adminSession, installBody({ postLogoutRedirectUris: [uri] }));
      expect(refused.statusCode, uri).toBe(400);
      expect(JSON.stringify(refused.json()), uri).toContain('postLogoutRedirectUris');
    }
  });

  it('uninstalls: the app, its client and everything issued to it are gone', async () => {
    const { app } = (await install(t.adminSession, installBody({ title: 'Doomed' }))).json();
    await t.db
      .insertInto('oidc_payloads')
      .values([
        {
          id: 'g1',
          type: 'Grant',
          payload: JSON.stringify({ clientId: app.clientId, accountId: t.org.admin.id }),
        },
        {
          id: 'r1',
          type: 'RefreshToken',
          payload: JSON.stringify({ clientId: app.clientId, grantId: 'g1' }),
          grant_id: 'g1',
        },
        { id: 'keep', type: 'Grant', payload: JSON.stringify({ clientId: 'someone-else' }) },
      ])
      .execute();
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/apps/${app.id}`,
      headers: t.adminSession.headers,
    });
    expect(res.statusCode).toBe(204);
    expect(await t.db.selectFrom('apps').select('id').where('id', '=', app.id).execute()).toEqual([]);
    expect(
      await t.db
        .selectFrom('oidc_clients')
        .select('client_id')
        .where('client_id', '=', app.clientId)
        .execute(),
    ).toEqual([]);
    const left = await t.db
      .selectFrom('oidc_payloads')
      .select('id')
      .where('id', 'in', ['g1', 'r1', 'keep'])
      .execute();
    expect(left.map((r) => r.id)).toEqual(['keep']);
    const gone = await t.app.inject({
      method: 'GET',
      url: `/api/apps/${app.id}`,
      headers: t.adminSession.headers,
    });
    expect(gone.statusCode).toBe(404);
    const activity = await t.db
      .selectFrom('activity_log')
      .select('action')
      .where('target_id', '=', app.id)
      .orderBy('created_at')
      .execute();
    expect(activity.map((a) => a.action)).toEqual(['app.installed', 'app.uninstalled']);
  });
});

describe('an id that is not an app', () => {
  it('is a 404 like any unknown app, for every call that takes one', async () => {
    for (const [method, url] of [
      ['GET', '/api/apps/not-an-id'],
      ['PUT', '/api/apps/not-an-id'],
      ['POST', '/api/apps/not-an-id/secret'],
      ['DELETE', '/api/apps/not-an-id'],
      ['GET', '/api/apps/00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        headers: t.adminSession.headers,
        ...(method === 'PUT' ? { payload: installBody({ title: 'X' }) } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toEqual({ code: 'not_found', message: 'The app was not found' });
    }
  });
});

describe('organisations are isolated', () => {
  it("an admin of B cannot list, read, change, rotate or uninstall A's apps", async () => {
    const { app } = (await install(t.adminSession, installBody({ title: 'A only' }))).json();
    const b = await createOrganizationWithAdmin(t.db);
    const bAdmin = await signInAs(t.db, b.admin);
    const list = await t.app.inject({ method: 'GET', url: '/api/apps', headers: bAdmin.headers });
    expect(list.statusCode).toBe(200);
    expect(list.json().apps).toEqual([]);
    const attempts = [
      { method: 'GET' as const, url: `/api/apps/${app.id}` },
      { method: 'PUT' as const, url: `/api/apps/${app.id}`, payload: installBody({ title: 'Hijacked' }) },
      { method: 'POST' as const, url: `/api/apps/${app.id}/secret` },
      { method: 'DELETE' as const, url: `/api/apps/${app.id}` },
    ];
    for (const attempt of attempts) {
      const res = await t.app.inject({ ...attempt, headers: bAdmin.headers });
      expect(res.statusCode, `${attempt.method} ${attempt.url}`).toBe(404);
      expect(res.json().error).toEqual({ code: 'not_found', message: 'The app was not found' });
    }
    const still = await t.app.inject({
      method: 'GET',
      url: `/api/apps/${app.id}`,
      headers: t.adminSession.headers,
    });
    expect(still.json().app.title).toBe('A only');
    const groupsOfB = await t.app.inject({
      method: 'GET',
      url: '/api/apps/group-options',
      headers: bAdmin.headers,
    });
    expect(groupsOfB.json().groups).toEqual([{ id: b.dashboardGroupId, name: 'Dashboard' }]);
  });
});
