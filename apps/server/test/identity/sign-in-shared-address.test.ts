import { describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../support/fixtures.ts';
import { browserAt, openIn, signIn } from './support/sign-in-from-address.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

const PASSWORD = WORLD_PASSWORD;

// Issue 30 item 2: an office behind one address. The app trusts the loopback proxy, so each browser
// here comes from the address its X-Forwarded-For names (TRUST_PROXY).
describe('sign-in behind one shared address', () => {
  const world = useSignInWorld({ env: { TRUST_PROXY: '127.0.0.1' } });

  const users = (n: number) =>
    Promise.all(
      Array.from({ length: n }, () =>
        createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash }),
      ),
    );

  it('signs in 24 people behind one address at once, each in a browser new to their account', async () => {
    const people = await users(24);
    const answers = await Promise.all(
      people.map((person) => signIn(world, browserAt(world, '198.51.100.10'), person)),
    );
    expect(answers.map((a) => a.status)).toEqual(people.map(() => 200));
  });

  it('still gives one address 20 wrong passwords a minute, spread over many accounts, even all at once', async () => {
    const accounts = await users(26);
    const laptop = browserAt(world, '198.51.100.21');
    expect((await signIn(world, laptop, accounts[0]!)).status).toBe(200);

    // 25 wrong passwords at once, one an account (the console's /api/sso/start takes 30 a minute).
    const spray = async (account: TestUser, i: number) =>
      (await openIn(browserAt(world, '198.51.100.20')))('password', {
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
      await openIn(browserAt(world, '198.51.100.20'))
    )('password', {
      email: accounts[25]!.email,
      password: PASSWORD,
    });
    expect(newcomer.status).toBe(429);
    // …while a browser that has signed in to its account before is not held up by the others' guesses.
    const done = await signIn(world, browserAt(world, '198.51.100.20', laptop), accounts[0]!);
    expect(done.status, done.body).toBe(200);
  });
});
