import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, createUser, type TestUser } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TestBrowser } from './support/browser.ts';
import { uidOf } from './support/sign-in.ts';

const PASSWORD = 'correct horse battery staple';

// Issue 30 item 2: an office behind one address. The app trusts the loopback proxy, so each browser
// here comes from the address its X-Forwarded-For names (TRUST_PROXY).
describe('sign-in behind one shared address', () => {
  let mailbox: Mailbox;
  let server: TestApp;
  let origin: string;
  let passwordHash: string;
  let organizationId: string;

  beforeAll(async () => {
    mailbox = await Mailbox.start();
    server = await createTestApp({
      env: { SMTP_URL: mailbox.url, TRUST_PROXY: '127.0.0.1' },
      listen: true,
    });
    origin = server.config.publicUrl.origin;
    passwordHash = await hashPassword(PASSWORD);
    organizationId = (await createOrganizationWithAdmin(server.db, { passwordHash })).id;
  });

  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  /** A browser at `address`; with `same`, the same browser (its cookies) moved to that address. */
  function browserAt(address: string, same?: TestBrowser): TestBrowser {
    const browser = new TestBrowser(origin, { headers: { 'x-forwarded-for': address } });
    for (const [name, value] of same?.cookies ?? []) browser.cookies.set(name, value);
    return browser;
  }

  async function openIn(browser: TestBrowser) {
    const hop = await browser.follow('/api/sso/start', (u) => u.pathname === '/login');
    const uid = uidOf(hop.location);
    return (step: string, json?: unknown) =>
      browser.request(`/api/interactions/${uid}/${step}`, json === undefined ? { method: 'POST' } : { json });
  }

  /** Password and e-mailed code in `browser`: the last answer (200 when signed in). */
  async function signIn(browser: TestBrowser, user: TestUser) {
    const post = await openIn(browser);
    const after = mailbox.count;
    const password = await post('password', { email: user.email, password: PASSWORD });
    if (password.status !== 200) return password;
    return post('code', { code: await mailbox.waitForCode(user.email, { after }) });
  }

  const users = (n: number) =>
    Promise.all(Array.from({ length: n }, () => createUser(server.db, organizationId, { passwordHash })));

  it('signs in 24 people behind one address at once, each in a browser new to their account', async () => {
    const people = await users(24);
    const answers = await Promise.all(people.map((person) => signIn(browserAt('198.51.100.10'), person)));
    expect(answers.map((a) => a.status)).toEqual(people.map(() => 200));
  });

  it('still gives one address 20 wrong passwords a minute, spread over many accounts, even all at once', async () => {
    const accounts = await users(26);
    const laptop = browserAt('198.51.100.21');
    expect((await signIn(laptop, accounts[0]!)).status).toBe(200);

    // 25 wrong passwords at once, one an account (the console's /api/sso/start takes 30 a minute).
    const spray = async (account: TestUser, i: number) =>
      (await openIn(browserAt('198.51.100.20')))('password', {
        email: account.email,
        password: `spray-${i}`,
      });
    const tries = await Promise.all(accounts.slice(1).map(spray));
    const statuses = tries.map((t) => t.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const refused = JSON.parse(tries.find((t) => t.status === 429)!.body).error;
    expect(refused.code).toBe('rate_limited');
    expect(refused.message).toMatch(/^Too many requests\. Try again in \d+ seconds?\.$/);

    // A browser new to its account at that address waits with the rest, right password or not…
    const newcomer = await (
      await openIn(browserAt('198.51.100.20'))
    )('password', {
      email: accounts[25]!.email,
      password: PASSWORD,
    });
    expect(newcomer.status).toBe(429);
    // …while a browser that has signed in to its account before is not held up by the others' guesses.
    const done = await signIn(browserAt('198.51.100.20', laptop), accounts[0]!);
    expect(done.status, done.body).toBe(200);
  });
});
