import type { DbOrTrx } from '../../db/database.ts';
import { selectAppsForUser } from './apps.repository.ts';

/**
 * The apps area's rule at authorization time (called from oidc/client-access.ts after the
 * organisation check): a client installed as an app is open only to users who may open that app
 * (open to everyone, or a member of one of its groups), by the same query as the apps page, so
 * the page and the provider always agree. Installs and uninstalls write the client and the app in
 * one transaction, so an organisation's client without an app row is one registered directly
 * (identity's tests); only the organisation rule applies to it.
 */
export async function userMayOpenClient(
  db: DbOrTrx,
  {
    userId,
    organizationId,
    clientId,
    installed,
  }: {
    userId: string;
    organizationId: string;
    clientId: string;
    /** Whether an app row holds this client, when the caller has read it already. */
    installed?: boolean;
  },
): Promise<boolean> {
  const isApp =
    installed ??
    !!(await db
      .selectFrom('apps')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('client_id', '=', clientId)
      .executeTakeFirst());
  if (!isApp) return true;
  const apps = await selectAppsForUser(db, organizationId, userId, { onlyClientId: clientId });
  return apps.length > 0;
}
