import { sql } from 'kysely';
import type { SignInWorld } from './sign-in-world.ts';

/** The account's live codes die (expired, or 5 wrong tries): the next sign-in needs a new one. */
export function codesDie(world: SignInWorld, email: string) {
  return world.server.db
    .updateTable('email_codes')
    .set({ expires_at: sql`now() - interval '1 second'` })
    .where('identifier', '=', email)
    .where('consumed_at', 'is', null)
    .execute();
}

/**
 * Resets the password of `email` as "Forgot password" does: asks for a code, reads it from the
 * mailbox and completes the reset with `password`. Returns the code and the answer to the reset.
 */
export async function resetPasswordWithMailedCode(world: SignInWorld, email: string, password: string) {
  const after = world.mailbox.count;
  await world.server.app.inject({
    method: 'POST',
    url: '/api/password-reset/start',
    payload: { email },
  });
  const code = await world.mailbox.waitForCode(email, { after, subject: /password reset/ });
  const done = await world.server.app.inject({
    method: 'POST',
    url: '/api/password-reset/complete',
    payload: { email, code, password },
  });
  return { code, done };
}
