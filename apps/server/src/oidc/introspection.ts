import type { Db } from '../db/database.ts';

/**
 * Who may read what at the introspection endpoint (the client has already authenticated like at
 * the token endpoint). An organisation's app sees only tokens issued to itself; one of Atrium's
 * own services (a client no organisation owns, such as the mail server) checks tokens that apps
 * present to it, so it may introspect any.
 */
export async function mayIntrospect(
  db: Db,
  caller: { clientId: string },
  token: { clientId?: string },
): Promise<boolean> {
  if (token.clientId === caller.clientId) return true;
  const row = await db
    .selectFrom('oidc_clients')
    .select('organization_id')
    .where('client_id', '=', caller.clientId)
    .executeTakeFirst();
  return row !== undefined && row.organization_id === null;
}
