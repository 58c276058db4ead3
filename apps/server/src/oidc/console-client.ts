import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { newClientSecret, openClientSecret, sealClientSecret } from './client-secrets.ts';

export const CONSOLE_CLIENT_ID = 'atrium-console';

export interface ConsoleClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
}

/**
 * Registers the console as a confidential client of its own provider (backend-for-frontend).
 * Idempotent and safe when several processes start together: the first insert wins, the
 * others read its secret.
 *
 * The redirect URIs follow PUBLIC_URL, and are added to those already registered, never put in
 * their place: a second process on the same database with another PUBLIC_URL (a second public
 * address, or a new one while the old process still runs) must not break sign-in on the first.
 * A PUBLIC_URL no longer used keeps its two URIs registered; they lead only to that address's
 * own callback, which needs this client's secret to redeem a code.
 */
export async function ensureConsoleClient(db: Db, config: Config): Promise<ConsoleClient> {
  const redirectUri = new URL('/api/sso/callback', config.publicUrl).href;
  const postLogoutRedirectUri = new URL('/login', config.publicUrl).href;
  const metadataWith = (redirectUris: string[], postLogoutRedirectUris: string[]) =>
    JSON.stringify({
      client_name: 'Atrium console',
      redirect_uris: redirectUris,
      post_logout_redirect_uris: postLogoutRedirectUris,
      // The console session lives on the server for a day; it never refreshes tokens.
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('oidc_clients')
      .values({
        client_id: CONSOLE_CLIENT_ID,
        organization_id: null,
        metadata: metadataWith([redirectUri], [postLogoutRedirectUri]),
        client_secret_enc: sealClientSecret(config, newClientSecret()),
      })
      .onConflict((oc) => oc.column('client_id').doNothing())
      .execute();
    // Locked, so two processes starting together each add their URIs to the other's.
    const { metadata } = await trx
      .selectFrom('oidc_clients')
      .select('metadata')
      .where('client_id', '=', CONSOLE_CLIENT_ID)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const listed = (key: string) => {
      const value = metadata[key];
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    };
    const merged = metadataWith(
      [...new Set([...listed('redirect_uris'), redirectUri])],
      [...new Set([...listed('post_logout_redirect_uris'), postLogoutRedirectUri])],
    );
    if (merged === JSON.stringify(metadata)) return;
    await trx
      .updateTable('oidc_clients')
      .set({ metadata: merged })
      .where('client_id', '=', CONSOLE_CLIENT_ID)
      .execute();
  });
  const row = await db
    .selectFrom('oidc_clients')
    .select('client_secret_enc')
    .where('client_id', '=', CONSOLE_CLIENT_ID)
    .executeTakeFirstOrThrow();
  let clientSecret: string;
  try {
    clientSecret = openClientSecret(config, row.client_secret_enc!);
  } catch {
    // Sealed with another ATRIUM_SECRET: the console's own secret can simply be replaced.
    clientSecret = newClientSecret();
    await db
      .updateTable('oidc_clients')
      .set({ client_secret_enc: sealClientSecret(config, clientSecret) })
      .where('client_id', '=', CONSOLE_CLIENT_ID)
      .execute();
  }
  return {
    clientId: CONSOLE_CLIENT_ID,
    clientSecret,
    redirectUri,
    postLogoutRedirectUri,
  };
}
