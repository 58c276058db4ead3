import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.ts';
import { createOrganizationWithAdmin, createUser, type TestUser } from '../support/fixtures.ts';
import { Mailbox } from '../support/mailbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TestBrowser } from './support/browser.ts';
import { uidOf } from './support/sign-in.ts';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase 42';

// Issue 30 item 2: six sign-ins abandoned after the password step (the owner's own, or anyone's who
// knows the password) used up the hour's 6 codes and locked the account out of every browser.
describe('sign-in codes and abandoned sign-ins', () => {
  let mailbox: Mailbox;
  let server: TestApp;
  let origin: string;
  let passwordHash: string;
  let organizationId: string;

  beforeAll(async () => {
    mailbox = await Mailbox.start();
    server = await createTestApp({ env: { SMTP_URL: mailbox.url }, listen: true });
    origin = server.config.publicUrl.origin;
    passwordHash = await hashPassword(PASSWORD);
    organizationId = (await createOrganizationWithAdmin(server.db, { passwordHash })).id;
  });

  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  /** A fresh console sign-in in `browser` (a new one by default), at its /login page. */
  async function openIn(browser = new TestBrowser(origin)) {
    const hop = await browser.follow('/api/sso/start', (u) => u.pathname === '/login');
    const uid = uidOf(hop.location);
    return (step: string, json?: unknown) =>
      browser.request(`/api/interactions/${uid}/${step}`, json === undefined ? { method: 'POST' } : { json });
  }

  async function signIn(browser: TestBrowser, user: TestUser, password = PASSWORD) {
    const post = await openIn(browser);
    const after = mailbox.count;
    const res = await post('password', { email: user.email, password });
    if (res.status !== 200) return res;
    return post('code', { code: await mailbox.waitForCode(user.email, { after }) });
  }

  const codesOf = async (email: string) =>
    server.db.selectFrom('email_codes').select('id').where('identifier', '=', email).execute();
  /** A minute passes since the account's codes were (last) sent. */
  const aMinutePasses = (email: string) =>
    server.db
      .updateTable('email_codes')
      .set({
        created_at: sql`created_at - interval '61 seconds'`,
        sent_at: sql`sent_at - interval '61 seconds'`,
      })
      .where('identifier', '=', email)
      .execute();
  /** The account's live codes die (expired, or 5 wrong tries): the next sign-in needs a new one. */
  const codesDie = (email: string) =>
    server.db
      .updateTable('email_codes')
      .set({ expires_at: sql`now() - interval '1 second'` })
      .where('identifier', '=', email)
      .where('consumed_at', 'is', null)
      .execute();

  /** Six sign-ins abandoned after the password, each code dead before the next: the hour's codes are used up. */
  async function sixAbandonedSignIns(user: TestUser) {
    for (let i = 0; i < 6; i++) {
      await codesDie(user.email);
      const res = await (await openIn())('password', { email: user.email, password: PASSWORD });
      expect(res.status, res.body).toBe(200);
    }
    await codesDie(user.email);
    const refused = await (await openIn())('password', { email: user.email, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toMatch(/^Too many codes were sent to this address/);
  }

  it('sends a new sign-in the code that still lives instead of a new one, so abandoned sign-ins use up no codes', async () => {
    const user = await createUser(server.db, organizationId, { passwordHash });
    const received: string[] = [];
    let last;
    for (let i = 0; i < 8; i++) {
      if (i > 0) await aMinutePasses(user.email);
      last = await openIn();
      const after = mailbox.count;
      const res = await last('password', { email: user.email, password: PASSWORD });
      expect(res.status, `sign-in ${i + 1}: ${res.body}`).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ stage: 'code', codeSent: true });
      received.push(await mailbox.waitForCode(user.email, { after }));
    }
    expect(new Set(received).size).toBe(1);
    expect(await codesOf(user.email)).toHaveLength(1);
    // Within a minute of the last message, a new sign-in gets the code without another e-mail.
    const quick = await openIn();
    const before = mailbox.count;
    expect((await quick('password', { email: user.email, password: PASSWORD })).status).toBe(200);
    // The code belongs to the newest sign-in now; the one before it has to start again.
    expect((await last!('code', { code: received[0] })).status).toBe(400);
    const done = await quick('code', { code: received[0] });
    expect(done.status, done.body).toBe(200);
    expect(mailbox.count).toBe(before);
  });

  it('lets the owner sign in from a known browser after six abandoned sign-ins; a new browser still waits', async () => {
    const user = await createUser(server.db, organizationId, { passwordHash });
    const laptop = new TestBrowser(origin);
    expect((await signIn(laptop, user)).status).toBe(200);
    await sixAbandonedSignIns(user);
    const done = await signIn(laptop, user);
    expect(done.status, done.body).toBe(200);
  });

  it('lifts the hourly cap on sign-in codes when the password is reset', async () => {
    const user = await createUser(server.db, organizationId, { passwordHash });
    await sixAbandonedSignIns(user);
    const after = mailbox.count;
    await server.app.inject({
      method: 'POST',
      url: '/api/password-reset/start',
      payload: { email: user.email },
    });
    const code = await mailbox.waitForCode(user.email, { after, subject: /password reset/ });
    const reset = await server.app.inject({
      method: 'POST',
      url: '/api/password-reset/complete',
      payload: { email: user.email, code, password: NEW_PASSWORD },
    });
    expect(reset.statusCode, reset.body).toBe(200);
    const done = await signIn(new TestBrowser(origin), user, NEW_PASSWORD);
    expect(done.status, done.body).toBe(200);
  });
});
