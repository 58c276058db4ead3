import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueBackchannelLogouts } from '../../src/oidc/backchannel-logout.ts';
import { createGroup, installBody } from '../apps/helpers.ts';
import { createUser, signInAs, type TestSession, type TestUser } from '../support/fixtures.ts';
import { as } from '../users/helpers.ts';
import { TestBrowser } from './support/browser.ts';
import { LogoutReceiver } from './support/logout-receiver.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';
import { leavesProviderAndApi, signInToConsole } from './support/sign-in.ts';

// OpenID Connect Back-Channel Logout 1.0: an app with a back-channel logout URI gets a signed
// logout token, through the job queue, whenever the user's session at it ends, whoever ends it.

const PASSWORD = WORLD_PASSWORD;
const REDIRECT = 'https://wiki.example.com/oidc/callback';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

interface InstalledApp {
  id: string;
  clientId: string;
  rp: client.Configuration;
}

describe('back-channel logout', () => {
  const world = useSignInWorld({
    adminPassword: false,
    env: { BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS: 'true' },
  });
  let receiver: LogoutReceiver;
  let admin: TestSession;
  let wiki: InstalledApp;
  let jwks: ReturnType<typeof createRemoteJWKSet>;

  async function install(overrides: Record<string, unknown>): Promise<InstalledApp> {
    const res = await as(world.server, admin).post('/api/apps', installBody(overrides));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { app, clientSecret } = res.body as { app: { id: string; clientId: string }; clientSecret: string };
    const rp = await client.discovery(
      new URL(`${world.origin}/oidc`),
      app.clientId,
      clientSecret,
      client.ClientSecretPost(clientSecret),
      { execute: [client.allowInsecureRequests] },
    );
    return { id: app.id, clientId: app.clientId, rp };
  }

  /** A fresh user signed in to the console and then, through single sign-on, to the app. */
  async function signedInToConsoleAndApp(app: InstalledApp, user?: TestUser) {
    const person =
      user ?? (await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash }));
    const browser = new TestBrowser(world.origin);
    await signInToConsole(browser, world.mailbox, { email: person.email, password: PASSWORD });
    expect((await browser.request('/api/session')).status).toBe(200);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(app.rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const hop = await browser.follow(url.href, leavesProviderAndApi);
    const tokens = await client.authorizationCodeGrant(app.rp, new URL(hop.location!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    const sid = await sidOfApp(person.id, app.clientId);
    return { user: person, browser, tokens, sid };
  }

  /** The sid the provider gave the app in the user's SSO session. */
  async function sidOfApp(userId: string, clientId: string): Promise<string> {
    const sessions = await world.server.db
      .selectFrom('oidc_payloads')
      .select('payload')
      .where('type', '=', 'Session')
      .execute();
    for (const { payload } of sessions) {
      const session = payload as { accountId?: string; authorizations?: Record<string, { sid?: string }> };
      const sid = session.accountId === userId ? session.authorizations?.[clientId]?.sid : undefined;
      if (sid) return sid;
    }
    throw new Error('The app has no authorization in the user’s SSO session');
  }

  /** Waits for the user's logout token at the app and checks it as an app must. */
  async function logoutTokenFor(app: InstalledApp, userId: string) {
    const received = await receiver.waitFor((c) => c.sub === userId && c.aud === app.clientId);
    const { payload, protectedHeader } = await jwtVerify(received.token, jwks, {
      issuer: `${world.origin}/oidc`,
      audience: app.clientId,
      typ: 'logout+jwt',
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.events).toEqual({ [EVENT]: {} });
    expect(payload).not.toHaveProperty('nonce');
    expect(typeof payload.jti).toBe('string');
    expect(typeof payload.iat).toBe('number');
    expect(payload.exp).toBeGreaterThan(payload.iat!);
    return payload;
  }

  beforeAll(async () => {
    receiver = await LogoutReceiver.start();
    jwks = createRemoteJWKSet(new URL(`${world.origin}/oidc/jwks`));
    admin = await signInAs(world.server.db, world.org.admin);
    wiki = await install({ backchannelLogoutUri: receiver.url });
  });

  afterAll(async () => {
    await receiver?.close();
  });

  it('discovery advertises back-channel logout with sessions', async () => {
    const metadata = wiki.rp.serverMetadata();
    expect(metadata.backchannel_logout_supported).toBe(true);
    expect(metadata.backchannel_logout_session_supported).toBe(true);
  });

  it('the app’s settings and snippet show the URI; it can be changed and removed, same rules as redirect URIs', async () => {
    const detail = await as(world.server, admin).get(`/api/apps/${wiki.id}`);
    expect(detail.body.app.backchannelLogoutUri).toBe(receiver.url);

    const custom = await as(world.server, admin).post(
      '/api/apps',
      installBody({
        templateKey: 'custom',
        title: 'Custom',
        backchannelLogoutUri: 'https://c.example.com/bcl',
      }),
    );
    expect(custom.status).toBe(201);
    expect(custom.body.app.configSnippet).toContain('OIDC_BACKCHANNEL_LOGOUT_URI=https://c.example.com/bcl');

    const body = { ...installBody({ title: 'Custom' }), templateKey: undefined };
    const refused = await as(world.server, admin).put(`/api/apps/${custom.body.app.id}`, {
      ...body,
      backchannelLogoutUri: 'http://c.example.com/bcl',
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('https');

    const removed = await as(world.server, admin).put(`/api/apps/${custom.body.app.id}`, {
      ...body,
      backchannelLogoutUri: null,
    });
    expect(removed.status).toBe(200);
    expect(removed.body.app.backchannelLogoutUri).toBeNull();
    const registered = await world.server.db
      .selectFrom('oidc_clients')
      .select('metadata')
      .where('client_id', '=', custom.body.app.clientId)
      .executeTakeFirstOrThrow();
    expect(registered.metadata).not.toHaveProperty('backchannel_logout_uri');

    const unchanged = await as(world.server, admin).put(`/api/apps/${wiki.id}`, body);
    expect(unchanged.body.app.backchannelLogoutUri).toBe(receiver.url);
  });

  it('RP-initiated logout from the app sends a token with the sid and ends the console session too', async () => {
    const { user, browser, tokens, sid } = await signedInToConsoleAndApp(wiki);
    const end = client.buildEndSessionUrl(wiki.rp, { id_token_hint: tokens.id_token! });
    const page = await browser.request(end.href);
    expect(page.status, page.body).toBe(200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)![1]!;
    const confirmed = await browser.request(`${world.origin}/oidc/session/end/confirm`, {
      form: { xsrf, logout: 'yes' },
    });
    expect(confirmed.status).toBe(303);

    const token = await logoutTokenFor(wiki, user.id);
    expect(token.sid).toBe(sid);
    expect((await browser.request('/api/session')).status).toBe(401);
  });

  it('signing out of the console sends a token for the app signed in to in that session', async () => {
    const { user, browser, sid } = await signedInToConsoleAndApp(wiki);
    const csrf = JSON.parse((await browser.request('/api/session')).body).csrfToken as string;
    const out = await browser.request('/api/sso/logout', {
      method: 'POST',
      headers: { 'x-csrf-token': csrf },
    });
    expect(out.status).toBe(200);
    expect((await logoutTokenFor(wiki, user.id)).sid).toBe(sid);
  });

  it('an admin ending the session sends a token with its sid', async () => {
    const { user, sid } = await signedInToConsoleAndApp(wiki);
    const { id } = await world.server.db
      .selectFrom('console_sessions')
      .select('id')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    const ended = await as(world.server, admin).delete(
      `/api/users/${user.id}/sessions/${encodeURIComponent(id)}`,
    );
    expect(ended.status).toBe(200);
    expect((await logoutTokenFor(wiki, user.id)).sid).toBe(sid);
  });

  it('suspending the user sends a token', async () => {
    const { user, sid } = await signedInToConsoleAndApp(wiki);
    expect((await as(world.server, admin).post(`/api/users/${user.id}/suspend`)).status).toBe(200);
    const token = await logoutTokenFor(wiki, user.id);
    expect(token.sub).toBe(user.id);
    expect(token.sid).toBe(sid);
  });

  it('suspending a user whose session already ended still reaches the app that holds a grant, with sub alone', async () => {
    const { user, browser } = await signedInToConsoleAndApp(wiki);
    const csrf = JSON.parse((await browser.request('/api/session')).body).csrfToken as string;
    await browser.request('/api/sso/logout', { method: 'POST', headers: { 'x-csrf-token': csrf } });
    await logoutTokenFor(wiki, user.id);

    expect((await as(world.server, admin).post(`/api/users/${user.id}/suspend`)).status).toBe(200);
    const received = await receiver.waitFor((c) => c.sub === user.id && !('sid' in c));
    const { payload } = await jwtVerify(received.token, jwks, {
      issuer: `${world.origin}/oidc`,
      audience: wiki.clientId,
    });
    expect(payload.events).toEqual({ [EVENT]: {} });
  });

  it('deleting the user sends a token', async () => {
    const { user, sid } = await signedInToConsoleAndApp(wiki);
    expect((await as(world.server, admin).delete(`/api/users/${user.id}`)).status).toBe(200);
    expect((await logoutTokenFor(wiki, user.id)).sid).toBe(sid);
  });

  it('losing access to the app (left its group, or the app’s groups changed) sends a token', async () => {
    const member = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const other = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const staff = await createGroup(world.server.db, world.org.id, 'Staff', [member.id, other.id]);
    const board = await createGroup(world.server.db, world.org.id, 'Board', []);
    const restricted = await install({
      title: 'Staff wiki',
      openToEveryone: false,
      groupIds: [staff],
      backchannelLogoutUri: receiver.url,
    });
    const first = await signedInToConsoleAndApp(restricted, member);
    const second = await signedInToConsoleAndApp(restricted, other);

    const left = await as(world.server, admin).delete(`/api/groups/${staff}/members/${member.id}`);
    expect(left.status).toBeLessThan(300);
    expect((await logoutTokenFor(restricted, member.id)).sid).toBe(first.sid);

    const moved = await as(world.server, admin).put(`/api/apps/${restricted.id}`, {
      ...installBody({ title: 'Staff wiki', openToEveryone: false, groupIds: [board] }),
      templateKey: undefined,
    });
    expect(moved.status).toBe(200);
    expect((await logoutTokenFor(restricted, other.id)).sid).toBe(second.sid);
    // The SSO session itself lives on: the console stays signed in.
    expect((await second.browser.request('/api/session')).status).toBe(200);
  });

  it('a delivery the app answers with 500 is retried by the queue and arrives', async () => {
    const { user, browser, sid } = await signedInToConsoleAndApp(wiki);
    receiver.failNext(500);
    const csrf = JSON.parse((await browser.request('/api/session')).body).csrfToken as string;
    await browser.request('/api/sso/logout', { method: 'POST', headers: { 'x-csrf-token': csrf } });
    await receiver.waitFor((c) => c.sub === user.id, 500);

    // The job waits for its backoff; make it due now rather than wait for it.
    const job = await waitForRetry(user.id);
    expect(job.attempts).toBe(1);
    expect(job.last_error).toContain('500');
    await world.server.db.updateTable('jobs').set({ run_at: new Date() }).where('id', '=', job.id).execute();
    world.server.app.jobs.wake();

    expect((await logoutTokenFor(wiki, user.id)).sid).toBe(sid);
  });

  it('without BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS, a URI on this host is refused before connecting: failed for good, and the admins are told once', async () => {
    // Every address of this host reaches this listener (dual-stack): any connection shows here.
    const connections: string[] = [];
    const tripwire = createServer((socket) => {
      connections.push(socket.remoteAddress ?? '');
      socket.destroy();
    });
    await new Promise<void>((resolve) => tripwire.listen({ port: 0, host: '::', ipv6Only: false }, resolve));
    const port = (tripwire.address() as AddressInfo).port;
    try {
      // Installed while the operator allowed it (or before installs were checked).
      const apps: Array<{ id: string; clientId: string }> = [];
      for (const host of ['127.1', '0x7f000001', '2130706433', '0177.0.0.1', '[::1]', 'localhost']) {
        const res = await as(world.server, admin).post(
          '/api/apps',
          installBody({ title: `Logout at ${host}`, backchannelLogoutUri: `http://${host}:${port}/logout` }),
        );
        expect(res.status, host).toBe(201);
        apps.push(res.body.app);
      }
      const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
      world.server.config.backchannelLogoutPrivateNetworks = false;
      try {
        for (let round = 0; round < 2; round++) {
          await queueBackchannelLogouts(
            world.server.db,
            apps.map((app) => ({ clientId: app.clientId, accountId: user.id, sid: `round-${round}` })),
          );
          world.server.app.jobs.wake();
          const jobs = await settledJobs(user.id, apps.length * (round + 1));
          for (const job of jobs) {
            expect(job.status).toBe('failed');
            expect(job.attempts).toBe(1);
            expect(job.last_error).toMatch(
              /^The back-channel logout URI’s host .* a loopback address: Atrium sends logout tokens there only when the operator sets BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS=true/,
            );
          }
        }
      } finally {
        world.server.config.backchannelLogoutPrivateNetworks = true;
      }
      expect(connections).toEqual([]);
      // One notice per app for each admin, however many logouts failed.
      const notices = await world.server.db
        .selectFrom('notifications')
        .select(['link', 'title', 'body'])
        .where('user_id', '=', world.org.admin.id)
        .where('kind', '=', 'app.logout_refused')
        .execute();
      expect(notices.map((n) => n.link).sort()).toEqual(apps.map((app) => `/apps/${app.id}`).sort());
      expect(notices[0]!.title).toMatch(/^Logouts are not sent to Logout at /);
      expect(notices[0]!.body).toMatch(/BACKCHANNEL_LOGOUT_PRIVATE_NETWORKS=true/);
    } finally {
      await new Promise((resolve) => tripwire.close(resolve));
    }
  });

  /** The user's logout jobs once `count` of them have run to an end (done or failed). */
  async function settledJobs(userId: string, count: number) {
    for (;;) {
      const jobs = (
        await world.server.db
          .selectFrom('jobs')
          .selectAll()
          .where('kind', '=', 'oidc.backchannel-logout')
          .execute()
      ).filter((j) => (j.payload as { accountId?: string }).accountId === userId);
      // Done, failed, or waiting to be retried (queued again after a try).
      const settled = jobs.filter((j) => j.status !== 'running' && (j.status !== 'queued' || j.attempts > 0));
      if (settled.length >= count) return settled;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function waitForRetry(userId: string) {
    for (;;) {
      const job = await world.server.db
        .selectFrom('jobs')
        .selectAll()
        .where('kind', '=', 'oidc.backchannel-logout')
        .where('status', '=', 'queued')
        .where('attempts', '=', 1)
        .execute()
        .then((jobs) => jobs.find((j) => (j.payload as { accountId?: string }).accountId === userId));
      if (job) return job;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
});
