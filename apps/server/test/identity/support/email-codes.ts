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
 * A browser on "Forgot password", through `inject` from `remoteAddress`: it keeps the cookies the
 * server sets (its device cookie: a reset code works only in the browser that asked for it).
 */
export function resetBrowser(
  world: SignInWorld,
  remoteAddress = '127.0.0.1',
  cookies: Record<string, string> = {},
) {
  const post = async (url: string, payload: Record<string, string>) => {
    const res = await world.server.app.inject({ method: 'POST', url, payload, cookies, remoteAddress });
    for (const cookie of res.cookies) cookies[cookie.name] = cookie.value;
    return res;
  };
  return {
    cookies,
    start: (email: string) => post('/api/password-reset/start', { email }),
    complete: (payload: { email: string; code: string; password: string }) =>
      post('/api/password-reset/complete', payload),
  };
}

/**
 * Resets the password of `email` as "Forgot password" does: asks for a code in one browser, reads
 * it from the mailbox and completes the reset there with `password`. Returns the code and the
 * answer to the reset.
 */
export async function resetPasswordWithMailedCode(world: SignInWorld, email: string, password: string) {
  const browser = resetBrowser(world);
  const after = world.mailbox.count;
  await browser.start(email);
  const code = await world.mailbox.waitForCode(email, { after, subject: /password reset/ });
  const done = await browser.complete({ email, code, password });
  return { code, done };
}
