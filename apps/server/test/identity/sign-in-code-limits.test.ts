import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../support/fixtures.ts';
import { openSignIn } from './support/sign-in.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';
import { recordEarlierFailures } from './support/sign-in-failures.ts';
import { codesDie } from './support/email-codes.ts';

const PASSWORD = WORLD_PASSWORD;

/**
 * Someone who knows the password can start one sign-in after another, each with a fresh code.
 * These tests show that codes are limited per account, not per sign-in, and that wrong codes
 * count toward the identifier's throttling and lockout like wrong passwords (docs/sign-in.md).
 */
describe('sign-in code limits across sign-ins', () => {
  const world = useSignInWorld();

  const openLogin = async () => (await openSignIn(world.origin)).post;

  /** A fresh sign-in taken past the password: its `post` and the code e-mailed for it. */
  async function reachCodeStep(user: TestUser) {
    const post = await openLogin();
    const after = world.mailbox.count;
    const res = await post('password', { email: user.email, password: PASSWORD });
    expect(res.status, res.body).toBe(200);
    return { post, code: await world.mailbox.waitForCode(user.email, { after }) };
  }

  const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');
  const errorOf = (res: { body: string }) =>
    (JSON.parse(res.body) as { error: { code: string; message: string } }).error;

  /** Time passes for this identifier's failures (the growing delay runs from the latest one). */
  async function letFailuresAge(email: string, seconds: number) {
    await world.server.db
      .updateTable('sign_in_failures')
      .set({ failed_at: sql`failed_at - make_interval(secs => ${seconds})` })
      .where('identifier', '=', email)
      .execute();
  }

  it('refuses a seventh code for one account within the hour, even for fresh sign-ins, and says when to try again', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const sent = [];
    // While a code lives, a fresh sign-in gets that code again (sign-in-code-reuse.test.ts): each
    // of these sign-ins comes after the last one's code has died.
    for (let i = 0; i < 6; i++) {
      if (i > 0) await codesDie(world, user.email);
      sent.push(await reachCodeStep(user));
    }

    await codesDie(world, user.email);
    const seventh = await openLogin();
    const refused = await seventh('password', { email: user.email, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(errorOf(refused).message).toMatch(
      /^Too many codes were sent to this address\. Try again in (59|60) minutes\.$/,
    );
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(58 * 60);

    // Re-sending in an earlier sign-in counts against the same limit once its 60 s are over.
    await world.server.db
      .updateTable('email_codes')
      .set({ created_at: sql`created_at - interval '61 seconds'` })
      .where('identifier', '=', user.email)
      .execute();
    const resend = await sent[0]!.post('resend');
    expect(resend.status).toBe(429);
    expect(errorOf(resend).message).toMatch(/^Too many codes were sent to this address\. Try again in/);

    // Once the first code is an hour old, one more may be sent.
    await world.server.db
      .updateTable('email_codes')
      .set({ created_at: sql`created_at - interval '59 minutes'` })
      .where('identifier', '=', user.email)
      .execute();
    const after = world.mailbox.count;
    const later = await seventh('password', { email: user.email, password: PASSWORD });
    expect(later.status, later.body).toBe(200);
    expect(await world.mailbox.waitForCode(user.email, { after })).toMatch(/^\d{6}$/);
  });

  it('counts wrong codes as failed sign-ins, so guessing across sign-ins is slowed down like password guessing', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const first = await reachCodeStep(user);
    for (let i = 0; i < 5; i++) {
      expect((await first.post('code', { code: wrongFor(first.code) })).status).toBe(400);
    }
    // Five failures: from here each try waits longer. Let the first pause pass.
    await letFailuresAge(user.email, 60);

    // The right password does not wipe the wrong codes: the count goes on in the new sign-in.
    const second = await reachCodeStep(user);
    for (let i = 0; i < 4; i++) {
      if (i > 0) await letFailuresAge(user.email, 60);
      const res = await second.post('code', { code: wrongFor(second.code) });
      expect(errorOf(res).code).toBe('code_incorrect');
    }

    // Nine failures: a 16-second pause, even for the right code of a live sign-in…
    const slowed = await second.post('code', { code: second.code });
    expect(slowed.status).toBe(429);
    expect(errorOf(slowed).code).toBe('sign_in_throttled');
    expect(errorOf(slowed).message).toMatch(
      /^Too many failed sign-in attempts\. Try again in 1[0-6] seconds\.$/,
    );
    expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThan(9);

    // …and for the password of yet another sign-in.
    const third = await openLogin();
    const password = await third('password', { email: user.email, password: PASSWORD });
    expect(password.status).toBe(429);
    expect(errorOf(password).code).toBe('sign_in_throttled');

    // When the pause is over, the right code still signs in.
    await letFailuresAge(user.email, 60);
    const done = await second.post('code', { code: second.code });
    expect(done.status, done.body).toBe(200);
  });

  it('locks the identifier for this address when wrong codes bring it to 100 failures in an hour', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    // 99 earlier failures from this address, far enough apart that the growing delay has passed.
    await recordEarlierFailures(world.server.db, user.email, {
      count: 99,
      ip: '127.0.0.1',
      ago: '40 seconds',
    });
    const { post, code } = await reachCodeStep(user);
    const wrong = await post('code', { code: wrongFor(code) });
    expect(errorOf(wrong).code).toBe('code_incorrect');

    const locked = await post('code', { code });
    expect(locked.status).toBe(429);
    expect(errorOf(locked).code).toBe('sign_in_locked');
    expect(errorOf(locked).message).toMatch(/locked until \d\d:\d\d UTC \(in (59|60) minutes\)/);

    const another = await openLogin();
    const password = await another('password', { email: user.email, password: PASSWORD });
    expect(password.status).toBe(429);
    expect(errorOf(password).code).toBe('sign_in_locked');
  });
});
