import type { DbOrTrx } from '../../db/database.ts';
import {
  grantsOf,
  noticesOfGrants,
  noticesOfSessions,
  queueBackchannelLogouts,
} from '../../oidc/backchannel-logout.ts';
import { deleteResetLinks } from './password-reset/reset-links.repository.ts';

/** Every provider model that belongs to an account (they all carry `accountId`). */
const ACCOUNT_MODELS = [
  'Session',
  'Grant',
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'Interaction',
];

/**
 * Ends everything a user is signed in with: console sessions, SSO sessions, grants, codes and
 * tokens of every app, their app passwords for mail and their reset links. For suspension, deletion and password reset; call it inside the
 * transaction that makes the change. A password change keeps the console session it came from.
 * Every app of the ended sessions and grants that listens gets a back-channel logout token.
 * Answers the names of the app passwords it ended, oldest first: the devices to set up again.
 */
export async function revokeUserAccess(
  db: DbOrTrx,
  userId: string,
  options: { exceptConsoleSessionId?: string } = {},
): Promise<{ appPasswords: string[] }> {
  let sessions = db.deleteFrom('console_sessions').where('user_id', '=', userId);
  if (options.exceptConsoleSessionId) sessions = sessions.where('id', '!=', options.exceptConsoleSessionId);
  await sessions.execute();
  // App passwords too (modules/mail): after a reset or a change, whoever learnt the old password
  // may have made one, and a suspended user starts again from none.
  const appPasswords = await db
    .deleteFrom('app_passwords')
    .where('user_id', '=', userId)
    .returning(['name', 'created_at'])
    .execute();
  // Trusted browsers (issue 17 item 6) were trusted with the old password: they ask again.
  await db.deleteFrom('trusted_browsers').where('user_id', '=', userId).execute();
  // Reset links already mailed (issue 38) would set a password over the new one: they end too.
  await deleteResetLinks(db, userId);
  const ended = await db
    .deleteFrom('oidc_payloads')
    .where('type', 'in', ACCOUNT_MODELS)
    .where((eb) => eb(eb.ref('payload', '->>').key('accountId' as never), '=', userId))
    .returning(['type', 'payload'])
    .execute();
  const ssoSessions = ended.filter((row) => row.type === 'Session').map((row) => row.payload);
  await queueBackchannelLogouts(db, noticesOfGrants(grantsOf(ended), noticesOfSessions(ssoSessions)));
  return {
    appPasswords: appPasswords
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.name.localeCompare(b.name))
      .map((row) => row.name),
  };
}
