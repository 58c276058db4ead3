import { timingSafeEqual } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../../../config.ts';
import type { DbOrTrx } from '../../../db/database.ts';
import { randomToken, sha256 } from '../../../lib/crypto.ts';

/** Long enough to follow a redirect or two, short enough to be useless if it leaks. */
const TICKET_TTL_SECONDS = 10 * 60;

/**
 * The ticket also travels in this cookie, set on the answer that earned it: a ticket link alone
 * (an attacker's own sign-up or invitation, sent to a victim) signs no other browser in.
 */
export const TICKET_COOKIE = 'atrium_ticket';
const TICKET_PATH = '/api/sso/start';

/**
 * A single-use ticket that signs a user in without password and code, for the moment right
 * after they proved who they are another way (sign-up completion, invitation acceptance).
 * Send the browser to `/api/sso/start?ticket=<ticket>&returnTo=<path>`, and bind it to that
 * browser with `bindTicketToBrowser`.
 */
export async function issueSignInTicket(db: DbOrTrx, userId: string): Promise<string> {
  const ticket = randomToken();
  await db
    .insertInto('sign_in_tickets')
    .values({
      id: sha256(ticket),
      user_id: userId,
      expires_at: sql<Date>`now() + make_interval(secs => ${TICKET_TTL_SECONDS})`,
    })
    .execute();
  return ticket;
}

/**
 * Uses up a ticket; the user it signs in, or undefined when it is unknown, used or expired. It is
 * a sign-in like any other, so it is the user's last sign-in (an invited user signed in through
 * their invitation is not "never signed in").
 */
export async function consumeSignInTicket(db: DbOrTrx, ticket: string): Promise<string | undefined> {
  const row = await db
    .updateTable('sign_in_tickets as t')
    .set({ consumed_at: sql`now()` })
    .from('users as u')
    .whereRef('u.id', '=', 't.user_id')
    .where('u.status', '=', 'active')
    .where('t.id', '=', sha256(ticket))
    .where('t.consumed_at', 'is', null)
    .where('t.expires_at', '>', sql<Date>`now()`)
    .returning('t.user_id')
    .executeTakeFirst();
  if (row) {
    await db
      .updateTable('users')
      .set({ last_sign_in_at: sql`now()` })
      .where('id', '=', row.user_id)
      .execute();
  }
  return row?.user_id;
}

const ticketCookieOptions = (config: Config): CookieSerializeOptions => ({
  httpOnly: true,
  path: TICKET_PATH,
  sameSite: 'lax',
  secure: config.secureCookies,
});

/** On the answer carrying a `/api/sso/start?ticket=…` address: its ticket, for this browser only. */
export function bindTicketToBrowser(reply: FastifyReply, config: Config, startUrl: string): void {
  const ticket = new URLSearchParams(startUrl.split('?')[1] ?? '').get('ticket');
  if (ticket) {
    void reply.setCookie(TICKET_COOKIE, ticket, {
      ...ticketCookieOptions(config),
      maxAge: TICKET_TTL_SECONDS,
    });
  }
}

/**
 * The ticket of a sign-in start, when this browser holds the cookie that came with it; otherwise
 * undefined (the browser signs in with password and code). The cookie is used up either way.
 */
export function takeBoundTicket(
  reply: FastifyReply,
  config: Config,
  ticket: string | undefined,
  cookie: string | undefined,
): string | undefined {
  if (!ticket) return undefined;
  void reply.clearCookie(TICKET_COOKIE, ticketCookieOptions(config));
  if (!cookie) return undefined;
  const same = timingSafeEqual(Buffer.from(sha256(ticket)), Buffer.from(sha256(cookie)));
  return same ? ticket : undefined;
}
