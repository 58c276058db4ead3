import { sql, type Expression, type SqlBool } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';

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
 * a refresh token would otherwise outlive the change by its whole lifetime. One statement.
 */
export async function revokeAccessLostToApp(
  db: DbOrTrx,
  organizationId: string,
  appId: string,
): Promise<void> {
  await db
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
    .execute();
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
  await db
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
    .execute();
}
