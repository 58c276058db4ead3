import { describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../support/fixtures.ts';
import { browserAt, openIn, signIn } from './support/sign-in-from-address.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

const PASSWORD = WORLD_PASSWORD;

// Issue 30 item 2: throttling hurts the guesser, not the owner. The app trusts the loopback proxy,
// so each browser here comes from the address its X-Forwarded-For names (TRUST_PROXY).
describe('sign-in throttling and the browsers an account has signed in with', () => {
  const world = useSignInWorld({ env: { TRUST_PROXY: '127.0.0.1' } });

  const errorCode = (res: { body: string }) =>
    (JSON.parse(res.body) as { error: { code: string } }).error.code;

  /** 20 addresses, 5 wrong passwords each: 100 failures in seconds, none locked yet. */
  async function guessFrom20Addresses(user: TestUser) {
    for (let a = 1; a <= 20; a++) {
      const post = await openIn(browserAt(world, `203.0.113.${a}`));
      for (let i = 0; i < 5; i++) {
        const res = await post('password', { email: user.email, password: `guess-${a}-${i}` });
        expect(res.status, res.body).toBe(400);
      }
    }
  }

  it('lets the owner sign in from a known browser while 20 addresses guess, and keeps the guessers waiting', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const other = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const laptop = browserAt(world, '198.51.100.1');
    expect((await signIn(world, laptop, user)).status).toBe(200);
    // A colleague's browser, known to their account only.
    const desk = browserAt(world, '198.51.100.3');
    expect((await signIn(world, desk, other)).status).toBe(200);

    await guessFrom20Addresses(user);
    // The 101st guess, from yet another address, waits 30 s: no identifier gets more than 100
    // consecutive failures without a pause…
    const guess = await openIn(browserAt(world, '203.0.113.21'));
    const paused = await guess('password', { email: user.email, password: 'guess-101' });
    expect(paused.status).toBe(429);
    expect(errorCode(paused)).toBe('sign_in_throttled');
    // …and a made-up device cookie changes nothing.
    const forged = browserAt(world, '203.0.113.22');
    forged.cookies.set('atrium_device', 'A'.repeat(43));
    expect((await (await openIn(forged))('password', { email: user.email, password: PASSWORD })).status).toBe(
      429,
    );
    // A browser the account has never signed in with waits too, even with the right password.
    const newBrowser = await (
      await openIn(browserAt(world, '192.0.2.50'))
    )('password', {
      email: user.email,
      password: PASSWORD,
    });
    expect(newBrowser.status).toBe(429);

    // The owner's laptop, now on another network: password and code, signed in.
    const moved = browserAt(world, '192.0.2.60', laptop);
    const done = await signIn(world, moved, user);
    expect(done.status, done.body).toBe(200);
    expect(JSON.parse(done.body).redirectTo).toMatch(/\/oidc\/auth\//);

    // The owner signing in gave the guessers no fresh start.
    const after = await (
      await openIn(browserAt(world, '203.0.113.23'))
    )('password', {
      email: user.email,
      password: 'guess-102',
    });
    expect(after.status).toBe(429);
    // A browser known to another account is a stranger to this one.
    const wrongAccount = await (await openIn(desk))('password', { email: user.email, password: PASSWORD });
    expect(wrongAccount.status).toBe(429);
  });

  it('holds a known browser to the same rules for its own wrong passwords', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const laptop = browserAt(world, '198.51.100.2');
    expect((await signIn(world, laptop, user)).status).toBe(200);
    const post = await openIn(laptop);
    for (let i = 0; i < 5; i++) {
      expect((await post('password', { email: user.email, password: `typo-${i}` })).status).toBe(400);
    }
    const slowed = await post('password', { email: user.email, password: PASSWORD });
    expect(slowed.status).toBe(429);
    expect(errorCode(slowed)).toBe('sign_in_throttled');
    // Its failures count for every other browser too: a guesser gains nothing from them.
    const stranger = await (
      await openIn(browserAt(world, '198.51.100.2'))
    )('password', {
      email: user.email,
      password: PASSWORD,
    });
    expect(stranger.status).toBe(429);
  });
});
