import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../../../config.ts';
import type { DbOrTrx } from '../../../db/database.ts';
import { randomToken, sha256 } from '../../../lib/crypto.ts';
import { crossSiteCookieRules } from '../console-client/session-cookie.ts';

/**
 * Each browser gets a long-lived random device cookie at its first completed sign-in; Atrium
 * keeps only its hash per user, so a sign-in from a browser the account has not used before
 * can be told to its owner. It says nothing about who is signed in and grants nothing.
 */
export const DEVICE_COOKIE = 'atrium_device';
/** Browsers keep a cookie 400 days at most; Atrium remembers a browser as long. */
export const DEVICE_LIFETIME_DAYS = 400;

const WELL_FORMED = /^[A-Za-z0-9_-]{43}$/;

/** The console session cookie's rules (HttpOnly, Secure and SameSite=None over HTTPS), a longer life. */
function deviceCookieOptions(config: Config): CookieSerializeOptions {
  return {
    httpOnly: true,
    path: '/',
    maxAge: DEVICE_LIFETIME_DAYS * 24 * 60 * 60,
    ...crossSiteCookieRules(config),
  };
}

/** This browser's device token: the one its cookie holds, or a new one. */
export function deviceTokenOf(request: FastifyRequest): string {
  const cookie = request.cookies[DEVICE_COOKIE];
  return cookie && WELL_FORMED.test(cookie) ? cookie : randomToken();
}

/** The sha256 of this browser's device cookie, as `known_devices` keeps it; null without one. */
export function deviceHashOf(request: FastifyRequest): string | null {
  const cookie = request.cookies[DEVICE_COOKIE];
  return cookie && WELL_FORMED.test(cookie) ? sha256(cookie) : null;
}

/** Whether the account of `email` has signed in from the browser of this device cookie hash. */
export async function isKnownDevice(db: DbOrTrx, email: string, deviceHash: string | null): Promise<boolean> {
  if (!deviceHash) return false;
  const row = await db
    .selectFrom('known_devices as d')
    .innerJoin('users as u', 'u.id', 'd.user_id')
    .select('d.user_id')
    .where('u.email', '=', email)
    .where('d.device_hash', '=', deviceHash)
    .executeTakeFirst();
  return !!row;
}

/** On a completed sign-in: sets the device cookie, or renews its life. */
export function keepDeviceCookie(reply: FastifyReply, config: Config, token: string): void {
  void reply.setCookie(DEVICE_COOKIE, token, deviceCookieOptions(config));
}

/** Records a sign-in of the user from this browser; true when the browser was new to the user. */
export async function rememberDevice(db: DbOrTrx, userId: string, token: string): Promise<boolean> {
  const row = await db
    .insertInto('known_devices')
    .values({ user_id: userId, device_hash: sha256(token) })
    .onConflict((oc) => oc.columns(['user_id', 'device_hash']).doUpdateSet({ last_seen_at: sql`now()` }))
    // now() is the transaction's start: equal to first_seen_at only for a row this statement inserted.
    .returning(sql<boolean>`first_seen_at = now()`.as('isNew'))
    .executeTakeFirstOrThrow();
  return row.isNew;
}

/** Browsers whose cookie has expired by now: nothing can present them again. */
export async function purgeForgottenDevices(db: DbOrTrx): Promise<void> {
  await db
    .deleteFrom('known_devices')
    .where('last_seen_at', '<', sql<Date>`now() - make_interval(days => ${DEVICE_LIFETIME_DAYS})`)
    .execute();
}
