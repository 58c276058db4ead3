import { expect } from 'vitest';
import type { Mailbox } from '../../support/mailbox.ts';
import { TestBrowser } from './browser.ts';

/** The interaction uid of a /login?uid=… address. */
export function uidOf(loginUrl: string | undefined): string {
  const uid = loginUrl ? new URL(loginUrl).searchParams.get('uid') : null;
  if (!uid) throw new Error(`Not a sign-in page address: ${loginUrl}`);
  return uid;
}

/**
 * Drives /login as the console page does: starting from an authorization (or /api/sso/start)
 * URL, posts e-mail and password, reads the code from the SMTP mailbox, posts it, and returns
 * the URL the provider finally redirects to outside our origin or to `stopAt`.
 */
export async function signInThroughLogin(
  browser: TestBrowser,
  mailbox: Mailbox,
  startUrl: string,
  credentials: { email: string; password: string },
  stopAt?: (url: URL) => boolean,
): Promise<string> {
  const toLogin = await browser.follow(startUrl, (u) => u.pathname === '/login');
  const uid = uidOf(toLogin.location);
  const after = mailbox.count;
  const password = await browser.request(`/api/interactions/${uid}/password`, { json: credentials });
  expect(password.status, password.body).toBe(200);
  const code = await mailbox.waitForCode(credentials.email, { after });
  const done = await browser.request(`/api/interactions/${uid}/code`, { json: { code } });
  expect(done.status, done.body).toBe(200);
  const { redirectTo } = JSON.parse(done.body) as { redirectTo: string };
  const last = await browser.follow(redirectTo, stopAt);
  if (!last.location)
    throw new Error(`Sign-in ended at ${last.url} with ${last.status}: ${last.body.slice(0, 300)}`);
  return last.location;
}

/**
 * A new browser on the /login page of a fresh console sign-in (a new interaction each time),
 * with `post(step, json)` for the interaction's endpoints (`password`, `code`, `resend`…).
 */
export async function openSignIn(origin: string) {
  const browser = new TestBrowser(origin);
  const hop = await browser.follow('/api/sso/start', (u) => u.pathname === '/login');
  const uid = uidOf(hop.location);
  const post = (step: string, json?: unknown) =>
    browser.request(`/api/interactions/${uid}/${step}`, json === undefined ? { method: 'POST' } : { json });
  return { browser, uid, post };
}

/** Where a console sign-in ends: the first address outside the provider and the API. */
export const leavesProviderAndApi = (u: URL) =>
  !u.pathname.startsWith('/oidc') && !u.pathname.startsWith('/api/');

/** Signs `browser` in to the console (/api/sso/start, then /login); returns where it lands. */
export function signInToConsole(
  browser: TestBrowser,
  mailbox: Mailbox,
  credentials: { email: string; password: string },
): Promise<string> {
  return signInThroughLogin(browser, mailbox, '/api/sso/start', credentials, leavesProviderAndApi);
}
