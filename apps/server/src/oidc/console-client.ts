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
 * others read its secret; the redirect URIs follow PUBLIC_URL.
 */
export async function ensureConsoleClient(db: Db, config: Config): Promise<ConsoleClient> {
  const redirectUri = new URL('/api/sso/callback', config.publicUrl).href;
  const postLogoutRedirectUri = new URL('/login', config.publicUrl).href;
  const metadata = JSON.stringify({
    client_name: 'Atrium console',
    redirect_uris: [redirectUri],
    post_logout_redirect_uris: [postLogoutRedirectUri],
    // The console session lives on the server for a day; it never refreshes tokens.
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  await db
    .insertInto('oidc_clients')
    .values({
      client_id: CONSOLE_CLIENT_ID,
      organization_id: null,
      metadata,
      client_secret_enc: sealClientSecret(config, newClientSecret()),
    })
    .onConflict((oc) => oc.column('client_id').doUpdateSet({ metadata }))
    .execute();
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
