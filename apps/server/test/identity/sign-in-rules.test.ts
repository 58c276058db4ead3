import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createUser } from '../support/fixtures.ts';
import { recordEarlierFailures } from './support/sign-in-failures.ts';
import { TestBrowser } from './support/browser.ts';
import { openSignIn } from './support/sign-in.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

const PASSWORD = WORLD_PASSWORD;

describe('sign-in rules at /login', () => {
  const world = useSignInWorld();

  const openLogin = () => openSignIn(world.origin);

  async function newUser() {
    return createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
  }

  it('answers a wrong password and an unknown e-mail alike', async () => {
    const user = await newUser();
    const { post } = await openLogin();
    const wrongPassword = await post('password', { email: user.email, password: 'not the password' });
    const unknownEmail = await post('password', { email: 'nobody-here@example.com', password: PASSWORD });
    expect(wrongPassword.status).toBe(400);
    expect(unknownEmail.status).toBe(400);
    expect(wrongPassword.body).toBe(unknownEmail.body);
    expect(JSON.parse(wrongPassword.body)).toEqual({
      error: { code: 'invalid_credentials', message: 'Incorrect e-mail or password' },
    });
  });

  it('e-mails a code after the right password, and the page picks up at the code step after a reload', async () => {
    const user = await newUser();
    const { post, browser, uid } = await openLogin();
    const after = world.mailbox.count;
    const res = await post('password', { email: user.email.toUpperCase(), password: PASSWORD });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ stage: 'code', email: user.email });
    const mail = await world.mailbox.waitFor(user.email, { after });
    expect(mail.subject).toBe('Your Atrium sign-in code');
    expect(mail.text).toMatch(/\b\d{6}\b/);
    expect(mail.html).toMatch(/\d{6}/);
    const state = JSON.parse((await browser.request(`/api/interactions/${uid}/state`)).body);
    expect(state).toMatchObject({ stage: 'code', email: user.email, clientName: 'Atrium console' });
  });

  it('kills a code after 5 wrong tries, even for the right code afterwards', async () => {
    const user = await newUser();
    const { post } = await openLogin();
    const after = world.mailbox.count;
    await post('password', { email: user.email, password: PASSWORD });
    const code = await world.mailbox.waitForCode(user.email, { after });
    const wrong = code === '000000' ? '111111' : '000000';
    const messages: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await post('code', { code: wrong });
      expect(res.status).toBe(400);
      messages.push(JSON.parse(res.body).error.fields.code);
    }
    expect(messages[0]).toBe('This code is not correct. 4 tries left.');
    expect(messages[3]).toBe('This code is not correct. 1 try left.');
    expect(messages[4]).toBe('Too many wrong codes. This code no longer works: send a new code.');
    const right = await post('code', { code });
    expect(right.status).toBe(400);
    expect(JSON.parse(right.body).error.code).toBe('code_invalid');
  });

  it('refuses an expired code', async () => {
    const user = await newUser();
    const { post } = await openLogin();
    const after = world.mailbox.count;
    await post('password', { email: user.email, password: PASSWORD });
    const code = await world.mailbox.waitForCode(user.email, { after });
    await world.server.db
      .updateTable('email_codes')
      .set({ expires_at: sql`now() - interval '1 second'` })
      .where('identifier', '=', user.email)
      .execute();
    const res = await post('code', { code });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toMatchObject({
      code: 'code_expired',
      fields: { code: 'This code has expired. Send a new code.' },
    });
  });

  it('refuses a re-send before 60 seconds, then sends a new code that replaces the old one', async () => {
    const user = await newUser();
    const { post } = await openLogin();
    let after = world.mailbox.count;
    await post('password', { email: user.email, password: PASSWORD });
    const first = await world.mailbox.waitForCode(user.email, { after });

    const early = await post('resend');
    expect(early.status).toBe(429);
    expect(JSON.parse(early.body).error.message).toMatch(/^You can ask for a new code in (60|59) seconds\.$/);
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThan(50);

    await world.server.db
      .updateTable('email_codes')
      .set({ created_at: sql`created_at - interval '61 seconds'` })
      .where('identifier', '=', user.email)
      .execute();
    after = world.mailbox.count;
    const resent = await post('resend');
    expect(resent.status).toBe(200);
    const second = await world.mailbox.waitForCode(user.email, { after });
    if (second !== first) {
      expect((await post('code', { code: first })).status).toBe(400);
    }
    const done = await post('code', { code: second });
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body).redirectTo).toMatch(/\/oidc\/auth\//);
  });

  it('slows down repeated failures on one identifier from one address', async () => {
    const user = await newUser();
    const { post } = await openLogin();
    for (let i = 0; i < 5; i++) {
      expect((await post('password', { email: user.email, password: `wrong-${i}` })).status).toBe(400);
    }
    const slowed = await post('password', { email: user.email, password: PASSWORD });
    expect(slowed.status).toBe(429);
    expect(JSON.parse(slowed.body).error).toMatchObject({ code: 'sign_in_throttled' });
    expect(JSON.parse(slowed.body).error.message).toMatch(
      /^Too many failed sign-in attempts\. Try again in \d+ seconds?\.$/,
    );
  });

  it('locks an identifier for one address after 100 failures in an hour, says until when, and unlocks after the hour', async () => {
    const user = await newUser();
    // 99 earlier failures from this address, far enough apart that the growing delay has passed.
    await recordEarlierFailures(world.server.db, user.email, {
      count: 99,
      ip: '127.0.0.1',
      ago: '40 seconds',
    });
    const { post } = await openLogin();
    expect((await post('password', { email: user.email, password: 'wrong again' })).status).toBe(400);

    const locked = await post('password', { email: user.email, password: PASSWORD });
    expect(locked.status).toBe(429);
    const error = JSON.parse(locked.body).error;
    expect(error.code).toBe('sign_in_locked');
    expect(error.message).toMatch(/locked until \d\d:\d\d UTC \(in (59|60) minutes\)/);

    await world.server.db
      .updateTable('sign_in_failures')
      .set({ failed_at: sql`failed_at - interval '61 minutes'` })
      .where('identifier', '=', user.email)
      .execute();
    const after = await post('password', { email: user.email, password: PASSWORD });
    expect(after.status).toBe(200);
  });

  it('does not let failures from another address lock the owner out', async () => {
    const user = await newUser();
    await recordEarlierFailures(world.server.db, user.email, {
      count: 100,
      ip: '203.0.113.9',
      ago: '5 minutes',
    });
    const { post } = await openLogin();
    const res = await post('password', { email: user.email, password: PASSWORD });
    expect(res.status).toBe(200);
  });

  it('tells a suspended user with the right password that the account is suspended, and nobody else', async () => {
    const user = await newUser();
    await world.server.db
      .updateTable('users')
      .set({ status: 'suspended' })
      .where('id', '=', user.id)
      .execute();
    const { post } = await openLogin();
    const wrong = await post('password', { email: user.email, password: 'not the password' });
    expect(JSON.parse(wrong.body).error.code).toBe('invalid_credentials');
    const right = await post('password', { email: user.email, password: PASSWORD });
    expect(right.status).toBe(403);
    expect(JSON.parse(right.body).error.message).toBe('This account is suspended. Ask your administrator.');
  });

  it('refuses interaction calls from a browser that did not start the sign-in', async () => {
    const { uid } = await openLogin();
    const stranger = new TestBrowser(world.origin);
    const res = await stranger.request(`/api/interactions/${uid}/password`, {
      json: { email: world.org.admin.email, password: PASSWORD },
    });
    expect(res.status).toBe(410);
    expect(JSON.parse(res.body).error.code).toBe('interaction_expired');
  });
});
