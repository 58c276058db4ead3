import { TestBrowser } from './browser.ts';
import type { SignInWorld } from './sign-in-world.ts';
import { WORLD_PASSWORD } from './sign-in-world.ts';
import { uidOf } from './sign-in.ts';

/**
 * A browser at `address`, for an app that trusts the loopback proxy (TRUST_PROXY: '127.0.0.1'),
 * so each request comes from the address its X-Forwarded-For names. With `same`, the same
 * browser (its cookies) moved to that address.
 */
export function browserAt(world: SignInWorld, address: string, same?: TestBrowser): TestBrowser {
  const browser = new TestBrowser(world.origin, { headers: { 'x-forwarded-for': address } });
  for (const [name, value] of same?.cookies ?? []) browser.cookies.set(name, value);
  return browser;
}

/** A fresh console sign-in in `browser`, at its /login page: `post(step, json)` to its interaction. */
export async function openIn(browser: TestBrowser) {
  const hop = await browser.follow('/api/sso/start', (u) => u.pathname === '/login');
  const uid = uidOf(hop.location);
  return (step: string, json?: unknown) =>
    browser.request(`/api/interactions/${uid}/${step}`, json === undefined ? { method: 'POST' } : { json });
}

/** Password and e-mailed code in `browser`: the last answer (200 when signed in). */
export async function signIn(
  world: SignInWorld,
  browser: TestBrowser,
  user: { email: string },
  password = WORLD_PASSWORD,
) {
  const post = await openIn(browser);
  const after = world.mailbox.count;
  const res = await post('password', { email: user.email, password });
  if (res.status !== 200) return res;
  return post('code', { code: await world.mailbox.waitForCode(user.email, { after }) });
}
