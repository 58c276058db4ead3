import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Config } from '../../config.ts';
import { SIGNUP_FLOW_LIFETIME_MS } from './signup.repository.ts';

export const SIGNUP_COOKIE = 'atrium_signup';
const SIGNUP_COOKIE_PATH = '/api/signup';

/**
 * HttpOnly and only sent to the sign-up API. SameSite=Strict because sign-up is never entered
 * from another site, and it keeps other sites from driving a visitor's flow (these routes are
 * public, so the session's CSRF token does not apply).
 */
export function signupCookieOptions(config: Config): CookieSerializeOptions {
  return {
    httpOnly: true,
    path: SIGNUP_COOKIE_PATH,
    sameSite: 'strict',
    secure: config.secureCookies,
    maxAge: SIGNUP_FLOW_LIFETIME_MS / 1000,
  };
}

export function clearedSignupCookieOptions(config: Config): CookieSerializeOptions {
  return { path: SIGNUP_COOKIE_PATH, sameSite: 'strict', secure: config.secureCookies, httpOnly: true };
}
