import type { Kysely } from 'kysely';
import type { Config } from '../../../src/config.ts';
import type { Database } from '../../../src/db/database.ts';
import { newClientSecret, sealClientSecret } from '../../../src/oidc/client-secrets.ts';

/** An app's OIDC client owned by an organisation, as an app install registers it. */
export async function registerTestClient(
  db: Kysely<Database>,
  config: Config,
  options: {
    /** null: one of Atrium's own services rather than an organisation's app. */
    organizationId: string | null;
    redirectUri: string;
    postLogoutRedirectUri?: string;
    name?: string;
    tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
  },
): Promise<{ clientId: string; clientSecret: string }> {
  const clientId = `app-${Math.random().toString(36).slice(2, 10)}`;
  const clientSecret = newClientSecret();
  await db
    .insertInto('oidc_clients')
    .values({
      client_id: clientId,
      organization_id: options.organizationId,
      metadata: JSON.stringify({
        client_name: options.name ?? 'Test app',
        redirect_uris: [options.redirectUri],
        post_logout_redirect_uris: [options.postLogoutRedirectUri ?? options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: options.tokenEndpointAuthMethod ?? 'client_secret_basic',
      }),
      client_secret_enc: sealClientSecret(config, clientSecret),
    })
    .execute();
  return { clientId, clientSecret };
}
