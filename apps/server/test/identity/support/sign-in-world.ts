import { expect } from 'vitest';
import type { Env } from '../../../src/config.ts';
import { hashPassword } from '../../../src/lib/passwords.ts';
import { issueSignInTicket, TICKET_COOKIE } from '../../../src/modules/auth/sign-in/sign-in-tickets.ts';
import { createOrganizationWithAdmin, type TestOrganization } from '../../support/fixtures.ts';
import { Mailbox } from '../../support/mailbox.ts';
import { createTestApp, type TestApp } from '../../support/test-app.ts';
import { useStarted } from '../../support/use-started.ts';
import { TestBrowser } from './browser.ts';
import { openSignIn, signInToConsole } from './sign-in.ts';

/** The password of the users of a sign-in world (the admin's, unless it has none). */
export const WORLD_PASSWORD = 'correct horse battery staple';

/** A listening Atrium that mails codes and links to a test mailbox, and an organisation. */
export interface SignInWorld {
  mailbox: Mailbox;
  server: TestApp;
  origin: string;
  org: TestOrganization;
  /** The argon2id hash of `WORLD_PASSWORD`, for more users. */
  passwordHash: string;
  close(): Promise<void>;
}

interface SignInWorldOptions {
  /** false: the admin has no password (tests that only sign in the users they create). */
  adminPassword?: boolean;
  /** Settings on top of the mailbox's SMTP_URL. */
  env?: Env;
}

/** The set-up of the tests that sign in through /login. */
export async function startSignInWorld(options: SignInWorldOptions = {}): Promise<SignInWorld> {
  const mailbox = await Mailbox.start();
  const server = await createTestApp({ env: { SMTP_URL: mailbox.url, ...options.env }, listen: true }).catch(
    async (error: unknown) => {
      await mailbox.close();
      throw error;
    },
  );
  const passwordHash = await hashPassword(WORLD_PASSWORD);
  const org = await createOrganizationWithAdmin(
    server.db,
    options.adminPassword === false ? {} : { passwordHash },
  );
  return {
    mailbox,
    server,
    origin: server.config.publicUrl.origin,
    org,
    passwordHash,
    async close() {
      await server.close();
      await mailbox.close();
    },
  };
}

/** A sign-in world for the tests of a describe block (see `useStarted`). */
export function useSignInWorld(options: SignInWorldOptions = {}): SignInWorld {
  return useStarted(() => startSignInWorld(options));
}

/** A new browser signed in to the console as `email` (with `WORLD_PASSWORD`). */
export async function signedInDevice(world: SignInWorld, email: string): Promise<TestBrowser> {
  const device = new TestBrowser(world.origin);
  await signInToConsole(device, world.mailbox, { email, password: WORLD_PASSWORD });
  expect((await device.request('/api/session')).status).toBe(200);
  return device;
}

/** Where `device` lands when it asks to sign in: straight back (SSO) or the sign-in page. */
export async function signInLandsOn(device: TestBrowser): Promise<string> {
  const hop = await device.follow('/api/sso/start?returnTo=%2Fapplication', (u) => u.pathname === '/login');
  return new URL(hop.location ?? hop.url).pathname;
}

/**
 * A new browser holding a sign-in ticket for `userId` (as after a reset or an invitation link),
 * sent by /api/sso/start on to /login: the ticket alone signs nobody in.
 */
export async function followTicketToLogin(world: SignInWorld, userId: string) {
  const ticket = await issueSignInTicket(world.server.db, userId);
  const browser = new TestBrowser(world.origin);
  browser.cookies.set(TICKET_COOKIE, ticket);
  const hop = await browser.follow(
    `/api/sso/start?${new URLSearchParams({ ticket, returnTo: '/application' })}`,
    (u) => u.pathname === '/login' || u.pathname === '/application',
  );
  expect(new URL(hop.location!).pathname).toBe('/login');
  expect((await browser.request('/api/session')).status).toBe(401);
  return { browser, hop };
}

/** A /login page past the right password (`WORLD_PASSWORD`) of `email`, with the mailbox's count before. */
export async function pastPassword(world: SignInWorld, email: string) {
  const login = await openSignIn(world.origin);
  const after = world.mailbox.count;
  const res = await login.post('password', { email, password: WORLD_PASSWORD });
  expect(res.status, res.body).toBe(200);
  return { ...login, after, state: JSON.parse(res.body) as Record<string, unknown> };
}
