import { describe, expect, it } from 'vitest';
import { createUser, signInAs } from '../support/fixtures.ts';
import { enrolAuthenticator, totpCode } from './support/authenticator.ts';
import { openSignIn, uidOf } from './support/sign-in.ts';
import {
  followTicketToLogin,
  pastPassword,
  useSignInWorld,
  WORLD_PASSWORD,
} from './support/sign-in-world.ts';

const PASSWORD = WORLD_PASSWORD;
const RECOVERY_USED = /^A recovery code was used to sign in to your Atrium account$/;

describe('sign-in with an authenticator app or a recovery code', () => {
  const world = useSignInWorld();

  /** A member with an authenticator app set up on /profile. */
  async function memberWithApp() {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const enrolled = await enrolAuthenticator(world.server, await signInAs(world.server.db, user));
    return { user, ...enrolled };
  }

  const errorOf = (body: string) => JSON.parse(body).error as { code: string; fields?: { code?: string } };

  it('asks for the app’s code instead of e-mailing one, and signs in with it', async () => {
    const { user, secret } = await memberWithApp();
    const { post, browser, uid, state, after } = await pastPassword(world, user.email);
    expect(state).toEqual({
      stage: 'totp',
      clientName: 'Atrium console',
      email: user.email,
      otherWays: ['email', 'recovery'],
      canTrustBrowser: true,
    });
    // A reload picks up at the same step.
    const again = JSON.parse((await browser.request(`/api/interactions/${uid}/state`)).body);
    expect(again.stage).toBe('totp');

    const done = await post('totp', { code: totpCode(secret, 1) });
    expect(done.status, done.body).toBe(200);
    const landed = await browser.follow(JSON.parse(done.body).redirectTo, (u) => u.pathname === '/');
    expect(landed.location && new URL(landed.location).pathname).toBe('/');
    // No sign-in code went out.
    expect(world.mailbox.messages.slice(after).filter((m) => /sign-in code/.test(m.subject))).toHaveLength(0);
  });

  it('refuses a code already used, even in another sign-in', async () => {
    const { user, secret } = await memberWithApp();
    const code = totpCode(secret, 1);
    const first = await pastPassword(world, user.email);
    expect((await first.post('totp', { code })).status).toBe(200);

    const second = await pastPassword(world, user.email);
    const replay = await second.post('totp', { code });
    expect(replay.status).toBe(400);
    expect(errorOf(replay.body).fields?.code).toBe(
      'This code was already used. Wait for the next one. 4 tries left.',
    );
    // The code of the enrolment's own step (earlier than the one used) is refused too.
    const older = await second.post('totp', { code: totpCode(secret, 0) });
    expect(older.status).toBe(400);
  });

  it('lets only one of two simultaneous requests with the same code through', async () => {
    const { user, secret } = await memberWithApp();
    const code = totpCode(secret, 1);
    const a = await pastPassword(world, user.email);
    const b = await pastPassword(world, user.email);
    const results = await Promise.all([a.post('totp', { code }), b.post('totp', { code })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('counts wrong codes as failed sign-ins: 5 end this sign-in, and the throttle then applies', async () => {
    const { user, secret } = await memberWithApp();
    const { post } = await pastPassword(world, user.email);
    const right = totpCode(secret, 1);
    const wrong = right === '000000' ? '111111' : '000000';
    const messages: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await post('totp', { code: wrong });
      expect(res.status).toBe(400);
      messages.push(errorOf(res.body).fields!.code!);
    }
    expect(messages[0]).toBe('This code is not correct. 4 tries left.');
    expect(messages[4]).toBe('Too many wrong codes. Enter your password again.');
    // The sign-in is over: even the right code now needs the password first.
    const after = await post('totp', { code: right });
    expect(after.status).toBe(400);
    expect(errorOf(after.body).fields?.code).toBe('Enter your e-mail and password first.');
    // Five failures from this address: the next try waits, like after wrong passwords.
    const throttled = await post('password', { email: user.email, password: PASSWORD });
    expect(throttled.status).toBe(429);
    expect(errorOf(throttled.body).code).toBe('sign_in_throttled');
    const failures = await world.server.db
      .selectFrom('sign_in_failures')
      .select('id')
      .where('identifier', '=', user.email)
      .execute();
    expect(failures).toHaveLength(5);
  });

  it('does not say before the password which factors an account has', async () => {
    const { user } = await memberWithApp();
    const { post, browser, uid } = await openSignIn(world.origin);
    const wrong = await post('password', { email: user.email, password: 'not the password' });
    expect(wrong.status).toBe(400);
    expect(JSON.parse((await browser.request(`/api/interactions/${uid}/state`)).body).stage).toBe('password');
    for (const step of ['totp', 'recovery']) {
      const res = await post(step, { code: step === 'totp' ? '123456' : 'abcde-fghij' });
      expect(res.status).toBe(400);
      expect(errorOf(res.body).fields?.code).toBe('Enter your e-mail and password first.');
    }
    const choose = await post('factor', { factor: 'email' });
    expect(choose.status).toBe(409);
  });

  it('offers the e-mailed code as another way, and back', async () => {
    const { user } = await memberWithApp();
    const { post, after } = await pastPassword(world, user.email);
    const chosen = await post('factor', { factor: 'email' });
    expect(chosen.status, chosen.body).toBe(200);
    expect(JSON.parse(chosen.body)).toMatchObject({
      stage: 'code',
      email: user.email,
      otherWays: ['totp', 'recovery'],
    });
    const code = await world.mailbox.waitForCode(user.email, { after });
    const back = await post('factor', { factor: 'totp' });
    expect(JSON.parse(back.body).stage).toBe('totp');
    await post('factor', { factor: 'email' });
    const done = await post('code', { code });
    expect(done.status, done.body).toBe(200);
  });

  it('uses each recovery code once, logs it and e-mails the owner', async () => {
    const { user, recoveryCodes } = await memberWithApp();
    const { post } = await pastPassword(world, user.email);
    expect(JSON.parse((await post('factor', { factor: 'recovery' })).body)).toMatchObject({
      stage: 'recovery',
      otherWays: ['totp', 'email'],
    });
    const after = world.mailbox.count;
    // Typed in capitals and without the dash: still the code.
    const done = await post('recovery', { code: recoveryCodes[0]!.toUpperCase().replace('-', ' ') });
    expect(done.status, done.body).toBe(200);
    const mail = await world.mailbox.waitFor(user.email, { subject: RECOVERY_USED, after });
    expect(mail.text).toContain('Recovery codes left');
    expect(mail.text).toMatch(/\b9\b/);
    const logged = await world.server.db
      .selectFrom('activity_log')
      .select(['action', 'ip'])
      .where('actor_user_id', '=', user.id)
      .where('action', '=', 'user.recovery_code_used')
      .execute();
    expect(logged).toHaveLength(1);

    const second = await pastPassword(world, user.email);
    await second.post('factor', { factor: 'recovery' });
    const reused = await second.post('recovery', { code: recoveryCodes[0] });
    expect(reused.status).toBe(400);
    expect(errorOf(reused.body).fields?.code).toBe(
      'This recovery code is not correct or was already used. 4 tries left.',
    );
    expect((await second.post('recovery', { code: recoveryCodes[1] })).status).toBe(200);
  });

  it('goes back to the e-mailed code once the app is removed, and tells the owner of each change', async () => {
    const before = world.mailbox.count;
    const { user } = await memberWithApp();
    const added = await world.mailbox.waitFor(user.email, {
      subject: /^An authenticator app was added/,
      after: before,
    });
    expect(added.text).toContain('IP address');
    const session = await signInAs(world.server.db, user);
    const removed = await world.server.app.inject({
      method: 'POST',
      url: '/api/profile/authenticator/remove',
      headers: session.headers,
      payload: { currentPassword: PASSWORD },
    });
    expect(removed.statusCode).toBe(204);
    await world.mailbox.waitFor(user.email, { subject: /^The authenticator app was removed/, after: before });
    const { state } = await pastPassword(world, user.email);
    expect(state).toMatchObject({ stage: 'code', email: user.email });
    expect(state).not.toHaveProperty('otherWays');
  });

  it('does not let a sign-in ticket (after a reset or an invitation link) skip the app', async () => {
    const { user, secret } = await memberWithApp();
    const { browser, hop } = await followTicketToLogin(world, user.id);
    // The sign-in goes on at /login with the password and the app's code.
    const uid = uidOf(hop.location);
    const post = (step: string, json: unknown) =>
      browser.request(`/api/interactions/${uid}/${step}`, { json });
    expect(JSON.parse((await post('password', { email: user.email, password: PASSWORD })).body).stage).toBe(
      'totp',
    );
    expect((await post('totp', { code: totpCode(secret, 1) })).status).toBe(200);
  });
});
