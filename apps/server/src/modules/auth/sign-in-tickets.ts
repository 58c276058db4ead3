import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';

/** Long enough to follow a redirect or two, short enough to be useless if it leaks. */
const TICKET_TTL_SECONDS = 10 * 60;

/**
 * A single-use ticket that signs a user in without password and code, for the moment right
 * after they proved who they are another way (sign-up completion, invitation acceptance).
 * Send the browser to `/api/sso/start?ticket=<ticket>&returnTo=<path>`.
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

/** Uses up a ticket; the user it signs in, or undefined when it is unknown, used or expired. */
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
  return row?.user_id;
}
