import { sql } from 'kysely';
import { expect, vi } from 'vitest';
import { resetBrowser } from './email-codes.ts';
import type { SignInWorld } from './sign-in-world.ts';

/** The answer to every refused reset code: wrong, dead, someone else's or never sent alike. */
export const REFUSED_CODE = {
  error: {
    code: 'code_invalid',
    message: 'This code is not correct or no longer valid. Check it, or send a new code.',
    fields: { code: 'This code is not correct or no longer valid. Check it, or send a new code.' },
  },
};

/** The password reset mails `email` received after the mailbox's count `after`. */
export const resetMailsTo = (world: SignInWorld, email: string, after: number) =>
  world.mailbox.messages.slice(after).filter((m) => m.to.includes(email) && /password reset/.test(m.subject));

/**
 * A minute passes for the reset codes of `email`: any browser may ask for a new one, or have its
 * live one sent again.
 */
export const minutePasses = (world: SignInWorld, email: string) =>
  world.server.db
    .updateTable('email_codes')
    .set({
      sent_at: sql`sent_at - interval '61 seconds'`,
      created_at: sql`created_at - interval '61 seconds'`,
    })
    .where('identifier', '=', email)
    .execute();

/**
 * Everything a reset request set off is done: the lookup and the code happen after the answer
 * (the app's background work), then no message is waiting to go out.
 */
export async function settled(world: SignInWorld): Promise<void> {
  await world.server.app.background.idle();
  await vi.waitFor(
    async () => {
      const waiting = await world.server.db
        .selectFrom('jobs')
        .select('id')
        .where('status', 'in', ['queued', 'running'])
        .execute();
      expect(waiting).toEqual([]);
    },
    { timeout: 10_000, interval: 100 },
  );
}

/**
 * Someone who knows `email`, in a browser of their own at `address`: asks for a reset code (the
 * owner receives it) and spends its 5 tries, each refused. Returns that browser.
 */
export async function spendACode(world: SignInWorld, email: string, address: string) {
  const attacker = resetBrowser(world, address);
  await minutePasses(world, email);
  const before = world.mailbox.count;
  expect((await attacker.start(email)).statusCode).toBe(200);
  const code = await world.mailbox.waitForCode(email, { after: before, subject: /password reset/ });
  const wrong = code === '000000' ? '111111' : '000000';
  for (let i = 0; i < 5; i++) {
    const guess = await attacker.complete({ email, code: wrong, password: 'a guessed new passphrase 7' });
    expect({ status: guess.statusCode, body: guess.json() }).toEqual({ status: 400, body: REFUSED_CODE });
  }
  // The code died with its fifth try: even the right one no longer works there.
  const late = await attacker.complete({ email, code, password: 'a guessed new passphrase 7' });
  expect(late.json()).toEqual(REFUSED_CODE);
  return attacker;
}
