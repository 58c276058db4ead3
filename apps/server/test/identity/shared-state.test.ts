import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.ts';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, type TestOrganization } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { TestBrowser } from './support/browser.ts';
import { signInThroughLogin, uidOf } from './support/sign-in.ts';

const PASSWORD = 'correct horse battery staple';
const leavesProviderAndApi = (u: URL) => !u.pathname.startsWith('/oidc') && !u.pathname.startsWith('/api/');

describe('sign-in state lives in the database', () => {
  let mailbox: Mailbox;
  let database: TestDatabase;
  let org: TestOrganization;

  beforeAll(async () => {
    mailbox = await Mailbox.start();
    database = await createTestDatabase();
    org = await createOrganizationWithAdmin(database.db, { passwordHash: await hashPassword(PASSWORD) });
  });

  afterAll(async () => {
    await database?.drop();
    await mailbox?.close();
  });

  it('keeps console and SSO sessions across a server restart', async () => {
    const first = await createTestApp({ database, env: { SMTP_URL: mailbox.url }, listen: true });
    const publicUrl = first.config.publicUrl.href;
    const browser = new TestBrowser(publicUrl);
    await signInThroughLogin(
      browser,
      mailbox,
      '/api/sso/start?returnTo=%2Fdashboard',
      {
        email: org.admin.email,
        password: PASSWORD,
      },
      leavesProviderAndApi,
    );
    await first.close();

    // A new process on the same database and PUBLIC_URL, behind the same public address.
    const second = await createTestApp({
      database,
      env: { SMTP_URL: mailbox.url, PUBLIC_URL: publicUrl.replace(/\/$/, '') },
      listen: true,
    });
    try {
      const port = (second.app.server.address() as { port: number }).port;
      const restarted = new TestBrowser(publicUrl, { backends: [`http://127.0.0.1:${port}`] });
      for (const [name, value] of browser.cookies) restarted.cookies.set(name, value);
      const session = await restarted.request('/api/session');
      expect(session.status).toBe(200);
      expect(JSON.parse(session.body).user.email).toBe(org.admin.email);
      // The provider's SSO session survived too: a new console sign-in needs no password.
      const again = await restarted.follow('/api/sso/start?returnTo=%2Fusers', leavesProviderAndApi);
      expect(again.location).toBe(new URL('/users', publicUrl).href);
    } finally {
      await second.close();
    }
  });

  it('lets two server processes on one database share a sign-in, request by request', async () => {
    // On PostgreSQL the second process has its own connection pool; on PGlite both share the instance.
    const secondDb = database.url ? await connectDatabase({ databaseUrl: database.url }) : database.db;
    const a = await createTestApp({ database, env: { SMTP_URL: mailbox.url }, listen: true });
    const publicUrl = a.config.publicUrl.origin;
    const b = await createTestApp({
      database: { ...database, db: secondDb },
      env: { SMTP_URL: mailbox.url, PUBLIC_URL: publicUrl },
      listen: true,
    });
    try {
      const backendOf = (app: typeof a) =>
        `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;
      // A round-robin load balancer: every hop of the sign-in goes to the other process.
      const browser = new TestBrowser(publicUrl, { backends: [backendOf(a), backendOf(b)] });
      const toLogin = await browser.follow(
        '/api/sso/start?returnTo=%2Fdashboard',
        (u) => u.pathname === '/login',
      );
      const uid = uidOf(toLogin.location);
      const after = mailbox.count;
      expect(
        (
          await browser.request(`/api/interactions/${uid}/password`, {
            json: { email: org.admin.email, password: PASSWORD },
          })
        ).status,
      ).toBe(200);
      const code = await mailbox.waitForCode(org.admin.email, { after });
      const state = await browser.request(`/api/interactions/${uid}/state`);
      expect(JSON.parse(state.body).stage).toBe('code');
      const done = await browser.request(`/api/interactions/${uid}/code`, { json: { code } });
      expect(done.status).toBe(200);
      const landed = await browser.follow(JSON.parse(done.body).redirectTo, leavesProviderAndApi);
      expect(landed.location).toBe(`${publicUrl}/dashboard`);
      for (let i = 0; i < 4; i++) {
        expect((await browser.request('/api/session')).status).toBe(200);
      }
    } finally {
      await b.close();
      await a.close();
      if (secondDb !== database.db) await secondDb.destroy();
    }
  });

  it('sets Secure, SameSite=None cookies on the parent domain when PUBLIC_URL is https', async () => {
    const server = await createTestApp({
      database,
      env: { SMTP_URL: mailbox.url, PUBLIC_URL: 'https://console.atrium.test' },
      listen: true,
    });
    try {
      const backend = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;
      // Behind a TLS-terminating proxy: the browser speaks https to the proxy.
      const browser = new TestBrowser('https://console.atrium.test', { backends: [backend] });
      const landed = await signInThroughLogin(
        browser,
        mailbox,
        '/api/sso/start?returnTo=%2Fapplication',
        {
          email: org.admin.email,
          password: PASSWORD,
        },
        leavesProviderAndApi,
      );
      expect(landed).toBe('https://console.atrium.test/application');
      const cookie = browser.setCookieLog.find((c) => c.startsWith('atrium_session='))!;
      expect(cookie).toMatch(/; Secure/i);
      expect(cookie).toMatch(/SameSite=None/i);
      expect(cookie).toMatch(/Domain=atrium\.test/i);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/Max-Age=86400/i);
      // The provider's own SSO session cookie follows the same rules.
      const sso = browser.setCookieLog.find((c) => c.startsWith('_session='))!;
      expect(sso).toMatch(/; secure/i);
      expect(sso).toMatch(/samesite=none/i);
      expect(sso).toMatch(/domain=atrium\.test/i);
      expect(sso).toMatch(/httponly/i);
      expect((await browser.request('/api/session')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
