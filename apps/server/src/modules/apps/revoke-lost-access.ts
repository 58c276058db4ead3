import { sql, type Expression, type SqlBool } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import {
  grantsOf,
  noticesOfGrants,
  noticesOfSessions,
  queueBackchannelLogouts,
} from '../../oidc/backchannel-logout.ts';

/**
 * "This user may open this app", as SQL over an app row `a` and a user id expression: the same
 * rule as the apps page (active user of the app's organisation; app open to everyone or shared
 * with one of the user's groups).
 */
function mayOpen(userIdText: Expression<string>) {
  return sql<SqlBool>`exists (
    select 1 from users u
    where u.id::text = ${userIdText} and u.organization_id = a.organization_id and u.status = 'active'
      and (a.open_to_everyone or exists (
        select 1 from app_groups ag join group_members gm on gm.group_id = ag.group_id
        where ag.app_id = a.id and gm.user_id = u.id)))`;
}

/**
 * After an app's groups change: the grants, codes and tokens (refresh tokens included) its users
 * hold are revoked for everyone who may no longer open it. Access is checked at authorization, but
 * a refresh token would otherwise outlive the change by its whole lifetime. Apps that listen get
 * a back-channel logout token for each user who lost access.
 */
export async function revokeAccessLostToApp(
  db: DbOrTrx,
  organizationId: string,
  appId: string,
): Promise<void> {
  const ended = await db
    .deleteFrom('oidc_payloads as p')
    .where(({ exists, not, selectFrom }) =>
      exists(
        selectFrom('apps as a')
          .select(sql`1`.as('one'))
          .where('a.id', '=', appId)
          .where('a.organization_id', '=', organizationId)
          .where(sql<SqlBool>`p.payload->>'clientId' = a.client_id`)
          .where(sql<string>`p.payload->>'accountId'`, 'is not', null)
          .where(not(mayOpen(sql<string>`p.payload->>'accountId'`))),
      ),
    )
    .returning(['p.type', 'p.payload'])
    .execute();
  await queueLogoutsForLostGrants(db, grantsOf(ended));
}

/**
 * After a user leaves a group (or is moved around): revokes what that user holds for the apps of
 * their organisation they may no longer open. For the groups area to call in the same transaction.
 */
export async function revokeAppAccessLostByUser(
  db: DbOrTrx,
  organizationId: string,
  userId: string,
): Promise<void> {
  const ended = await db
    .deleteFrom('oidc_payloads as p')
    .where(sql<string>`p.payload->>'accountId'`, '=', userId)
    .where(({ exists, not, selectFrom }) =>
      exists(
        selectFrom('apps as a')
          .select(sql`1`.as('one'))
          .where('a.organization_id', '=', organizationId)
          .where(sql<SqlBool>`p.payload->>'clientId' = a.client_id`)
          .where(not(mayOpen(sql.val(userId)))),
      ),
    )
    .returning(['p.type', 'p.payload'])
    .execute();
  await queueLogoutsForLostGrants(db, grantsOf(ended));
}

/**
 * The SSO sessions stay (the user may still use other apps), so the logout tokens name each
 * session the user signed in to the app with, or, with none left, every session of the user there.
 */
async function queueLogoutsForLostGrants(
  db: DbOrTrx,
  grants: Array<{ accountId: string; clientId: string }>,
): Promise<void> {
  if (grants.length === 0) return;
  const lost = new Set(grants.map((g) => `${g.clientId} ${g.accountId}`));
  const sessions = await db
    .selectFrom('oidc_payloads')
    .select('payload')
    .where('type', '=', 'Session')
    .where(sql<string>`payload->>'accountId'`, 'in', [...new Set(grants.map((g) => g.accountId))])
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .execute();
  const inSessions = noticesOfSessions(sessions.map((row) => row.payload)).filter((n) =>
    lost.has(`${n.clientId} ${n.accountId}`),
  );
  await queueBackchannelLogouts(db, noticesOfGrants(grants, inSessions));
}
