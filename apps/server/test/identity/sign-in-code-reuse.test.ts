import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../support/fixtures.ts';
import { TestBrowser } from './support/browser.ts';
import { codesDie, resetPasswordWithMailedCode } from './support/email-codes.ts';
import { openIn, signIn } from './support/sign-in-from-address.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

const PASSWORD = WORLD_PASSWORD;
const NEW_PASSWORD = 'a brand new passphrase 42';

// Issue 30 item 2: six sign-ins abandoned after the password step (the owner's own, or anyone's who
// knows the password) used up the hour's 6 codes and locked the account out of every browser.
describe('sign-in codes and abandoned sign-ins', () => {
  const world = useSignInWorld();
  /** A fresh console sign-in in a new browser, at its /login page. */
  const openInNewBrowser = () => openIn(new TestBrowser(world.origin));

  const codesOf = async (email: string) =>
    world.server.db.selectFrom('email_codes').select('id').where('identifier', '=', email).execute();
  /** A minute passes since the account's codes were (last) sent. */
  const aMinutePasses = (email: string) =>
    world.server.db
      .updateTable('email_codes')
      .set({
        created_at: sql`created_at - interval '61 seconds'`,
        sent_at: sql`sent_at - interval '61 seconds'`,
      })
      .where('identifier', '=', email)
      .execute();

  /** Six sign-ins abandoned after the password, each code dead before the next: the hour's codes are used up. */
  async function sixAbandonedSignIns(user: TestUser) {
    for (let i = 0; i < 6; i++) {
      await codesDie(world, user.email);
      const res = await (await openInNewBrowser())('password', { email: user.email, password: PASSWORD });
      expect(res.status, res.body).toBe(200);
    }
    await codesDie(world, user.email);
    const refused = await (await openInNewBrowser())('password', { email: user.email, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toMatch(/^Too many codes were sent to this address/);
  }

  it('sends a new sign-in the code that still lives instead of a new one, so abandoned sign-ins use up no codes', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const received: string[] = [];
    let last;
    for (let i = 0; i < 8; i++) {
      if (i > 0) await aMinutePasses(user.email);
      last = await openInNewBrowser();
      const after = world.mailbox.count;
      const res = await last('password', { email: user.email, password: PASSWORD });
      expect(res.status, `sign-in ${i + 1}: ${res.body}`).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ stage: 'code', codeSent: true });
      received.push(await world.mailbox.waitForCode(user.email, { after }));
    }
    expect(new Set(received).size).toBe(1);
    expect(await codesOf(user.email)).toHaveLength(1);
    // Within a minute of the last message, a new sign-in gets the code without another e-mail.
    const quick = await openInNewBrowser();
    const before = world.mailbox.count;
    expect((await quick('password', { email: user.email, password: PASSWORD })).status).toBe(200);
    // The code belongs to the newest sign-in now; the one before it has to start again.
    expect((await last!('code', { code: received[0] })).status).toBe(400);
    const done = await quick('code', { code: received[0] });
    expect(done.status, done.body).toBe(200);
    expect(world.mailbox.count).toBe(before);
  });

  it('lets the owner sign in from a known browser after six abandoned sign-ins; a new browser still waits', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const laptop = new TestBrowser(world.origin);
    expect((await signIn(world, laptop, user)).status).toBe(200);
    await sixAbandonedSignIns(user);
    const done = await signIn(world, laptop, user);
    expect(done.status, done.body).toBe(200);
  });

  it('lifts the hourly cap on sign-in codes when the password is reset', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    await sixAbandonedSignIns(user);
    const { done: reset } = await resetPasswordWithMailedCode(world, user.email, NEW_PASSWORD);
    expect(reset.statusCode, reset.body).toBe(200);
    const done = await signIn(world, new TestBrowser(world.origin), user, NEW_PASSWORD);
    expect(done.status, done.body).toBe(200);
  });
});
