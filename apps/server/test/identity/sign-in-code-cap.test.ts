import { describe, expect, it } from 'vitest';
import { createUser } from '../support/fixtures.ts';
import { codesDie } from './support/email-codes.ts';
import { openSignIn } from './support/sign-in.ts';
import { useSignInWorld, WORLD_PASSWORD } from './support/sign-in-world.ts';

const PASSWORD = WORLD_PASSWORD;

// Issue 17 item 6: the hourly cap of 6 codes an address counts the codes that were not used, so
// a person who signs in seven times in an hour is not refused the seventh time; unused codes
// still count (sign-in-code-limits.test.ts).
describe('the hourly code cap and codes that were used', () => {
  const world = useSignInWorld();

  it('lets a person sign in seven times in an hour, each with its code', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    for (let i = 0; i < 7; i++) {
      const { post } = await openSignIn(world.origin);
      const after = world.mailbox.count;
      const password = await post('password', { email: user.email, password: PASSWORD });
      expect(password.status, `sign-in ${i + 1}: ${password.body}`).toBe(200);
      const code = await world.mailbox.waitForCode(user.email, { after });
      const done = await post('code', { code });
      expect(done.status, `sign-in ${i + 1}: ${done.body}`).toBe(200);
    }
  });

  it('still refuses a seventh code when the six before it were not used', async () => {
    const user = await createUser(world.server.db, world.org.id, { passwordHash: world.passwordHash });
    const used = await openSignIn(world.origin);
    let after = world.mailbox.count;
    await used.post('password', { email: user.email, password: PASSWORD });
    expect(
      (await used.post('code', { code: await world.mailbox.waitForCode(user.email, { after }) })).status,
    ).toBe(200);
    // One used and six unused (each dead before the next sign-in, which would otherwise get it
    // again): the seventh unused one is refused.
    for (let i = 0; i < 6; i++) {
      await codesDie(world, user.email);
      const { post } = await openSignIn(world.origin);
      after = world.mailbox.count;
      expect((await post('password', { email: user.email, password: PASSWORD })).status).toBe(200);
      await world.mailbox.waitForCode(user.email, { after });
    }
    await codesDie(world, user.email);
    const { post } = await openSignIn(world.origin);
    const refused = await post('password', { email: user.email, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toMatch(/^Too many codes were sent to this address/);
  });
});
