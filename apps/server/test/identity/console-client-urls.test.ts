import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { CONSOLE_CLIENT_ID } from '../../src/oidc/console-client.ts';
import { createOrganizationWithAdmin, type TestOrganization } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { TestBrowser } from './support/browser.ts';
import { signInThroughLogin } from './support/sign-in.ts';

// Issue 30, item 9: a second process on the same database with another PUBLIC_URL registers its
// own redirect URIs for the console's client next to the first's, and sign-in keeps working on both.
const PASSWORD = 'correct horse battery staple';
const leavesProviderAndApi = (u: URL) => !u.pathname.startsWith('/oidc') && !u.pathname.startsWith('/api/');

describe("the console's client with two PUBLIC_URLs on one database", () => {
  let mailbox: Mailbox;
  let database: TestDatabase;
  let org: TestOrganization;
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    mailbox = await Mailbox.start();
    database = await createTestDatabase();
    org = await createOrganizationWithAdmin(database.db, { passwordHash: await hashPassword(PASSWORD) });
    first = await createTestApp({ database, env: { SMTP_URL: mailbox.url }, listen: true });
    // Started after the first: before, its registration replaced the first's redirect URIs.
    second = await createTestApp({
      database,
      env: { SMTP_URL: mailbox.url },
      listen: true,
      publicHost: 'localhost',
    });
  });

  afterAll(async () => {
    await second?.close();
    await first?.close();
    await database?.drop();
    await mailbox?.close();
  });

  it('registers both addresses’ redirect URIs', async () => {
    const { metadata } = await database.db
      .selectFrom('oidc_clients')
      .select('metadata')
      .where('client_id', '=', CONSOLE_CLIENT_ID)
      .executeTakeFirstOrThrow();
    const callback = (app: TestApp) => new URL('/api/sso/callback', app.config.publicUrl).href;
    const login = (app: TestApp) => new URL('/login', app.config.publicUrl).href;
    expect(first.config.publicUrl.href).not.toBe(second.config.publicUrl.href);
    expect(metadata.redirect_uris).toEqual([callback(first), callback(second)]);
    expect(metadata.post_logout_redirect_uris).toEqual([login(first), login(second)]);
  });

  it.each([
    ['the first', () => first],
    ['the second', () => second],
  ])('signs in to the console on %s process', async (_, app) => {
    const browser = new TestBrowser(app().config.publicUrl.href);
    const landed = await signInThroughLogin(
      browser,
      mailbox,
      '/api/sso/start?returnTo=%2Fdashboard',
      { email: org.admin.email, password: PASSWORD },
      leavesProviderAndApi,
    );
    expect(landed).toBe(new URL('/dashboard', app().config.publicUrl).href);
    const session = await browser.request('/api/session');
    expect(session.status).toBe(200);
  });

  it('a restart with the same PUBLIC_URL changes nothing', async () => {
    const before = await database.db.selectFrom('oidc_clients').select('metadata').execute();
    const again = await createTestApp({
      database,
      env: { SMTP_URL: mailbox.url, PUBLIC_URL: first.config.publicUrl.origin },
    });
    await again.close();
    expect(await database.db.selectFrom('oidc_clients').select('metadata').execute()).toEqual(before);
  });
});
