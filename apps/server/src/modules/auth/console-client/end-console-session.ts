import { sql } from 'kysely';
import type { DbOrTrx } from '../../../db/database.ts';
import { noticesOfSessions, queueBackchannelLogouts } from '../../../oidc/backchannel-logout.ts';
import { CONSOLE_CLIENT_ID } from '../../../oidc/console-client.ts';

/**
 * Ends one console session and the provider's SSO session it was signed in with. Without the
 * second, the ended device would pass straight back through single sign-on on its next request;
 * with it, that device signs in again with password and code. Call it in a transaction.
 * False when the user has no such session.
 */
export async function endConsoleSession(
  db: DbOrTrx,
  session: { organizationId: string; userId: string; sessionId: string },
): Promise<boolean> {
  const ended = await db
    .deleteFrom('console_sessions')
    .where('organization_id', '=', session.organizationId)
    .where('user_id', '=', session.userId)
    .where('id', '=', session.sessionId)
    .returning('oidc_sid')
    .executeTakeFirst();
  if (!ended) return false;
  await endSsoSession(db, session.userId, ended.oidc_sid);
  return true;
}

/**
 * Ends the provider's SSO session a console session was signed in with (its ID token's `sid`,
 * the one the provider keeps for the console in that SSO session), and with it the tokens of
 * apps bound to it; every app signed in to in it that listens gets a back-channel logout token
 * (queued with the caller's transaction). Nothing for a session made without the provider.
 */
export async function endSsoSession(db: DbOrTrx, userId: string, oidcSid: string | null): Promise<void> {
  if (!oidcSid) return;
  const ended = await db
    .deleteFrom('oidc_payloads')
    .where('type', '=', 'Session')
    .where(sql<string>`payload->>'accountId'`, '=', userId)
    .where(sql<string>`payload->'authorizations'->${CONSOLE_CLIENT_ID}->>'sid'`, '=', oidcSid)
    .returning('payload')
    .execute();
  await queueBackchannelLogouts(db, noticesOfSessions(ended.map((row) => row.payload)));
}
