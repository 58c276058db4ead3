import { sql } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import { PKCE_OPTIONAL } from '../../oidc/pkce-policy.ts';

/**
 * The OIDC client behind an installed app, in identity's `oidc_clients` table. Written only
 * inside the install / change / rotate / uninstall transactions of the apps service.
 */
export interface AppClientMetadata {
  title: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  /** Null: the app gets no logout tokens. */
  backchannelLogoutUri: string | null;
}

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post';

/** What the install fixes from the app's template, never changed afterwards. */
interface InstallFixed {
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  offlineAccess: boolean;
  requirePkce: boolean;
}

/** What an admin can change later: name and addresses. */
function changeableMetadata(m: AppClientMetadata) {
  return {
    client_name: m.title,
    redirect_uris: m.redirectUris,
    // Where the app may send its users after RP-initiated logout (the app's list, as stored).
    post_logout_redirect_uris: m.postLogoutRedirectUris,
    // Logout tokens carry the `sid` of the session that ended whenever one did (see
    // oidc/backchannel-logout.ts); without a URI the keys are left out, not null.
    ...(m.backchannelLogoutUri
      ? { backchannel_logout_uri: m.backchannelLogoutUri, backchannel_logout_session_required: true }
      : {}),
  };
}

/**
 * oidc-provider client metadata: a confidential web app using code + PKCE (the provider requires
 * PKCE unless the app's template cannot send it, oidc/pkce-policy.ts).
 */
function metadataJson(m: AppClientMetadata, fixed: InstallFixed): string {
  return JSON.stringify({
    ...changeableMetadata(m),
    // Without the refresh_token grant the app gets no refresh token, and no offline_access.
    grant_types: fixed.offlineAccess ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: fixed.tokenEndpointAuthMethod,
    ...(fixed.requirePkce ? {} : { [PKCE_OPTIONAL]: true }),
  });
}

export async function insertAppClient(
  db: DbOrTrx,
  organizationId: string,
  client: { clientId: string; secretSealed: string } & InstallFixed & AppClientMetadata,
): Promise<void> {
  await db
    .insertInto('oidc_clients')
    .values({
      client_id: client.clientId,
      organization_id: organizationId,
      metadata: metadataJson(client, client),
      client_secret_enc: client.secretSealed,
    })
    .execute();
}

export async function updateAppClient(
  db: DbOrTrx,
  organizationId: string,
  clientId: string,
  metadata: AppClientMetadata,
): Promise<void> {
  await db
    .updateTable('oidc_clients')
    // Merged, so what the install fixed (grant types, client authentication) stays as it was.
    // The back-channel keys go first, so removing the URI removes them.
    .set({
      metadata: sql`(metadata - 'backchannel_logout_uri' - 'backchannel_logout_session_required')
        || ${JSON.stringify(changeableMetadata(metadata))}::jsonb`,
    })
    .where('organization_id', '=', organizationId)
    .where('client_id', '=', clientId)
    .execute();
}

export async function setAppClientSecret(
  db: DbOrTrx,
  organizationId: string,
  clientId: string,
  secretSealed: string,
): Promise<void> {
  await db
    .updateTable('oidc_clients')
    .set({ client_secret_enc: secretSealed })
    .where('organization_id', '=', organizationId)
    .where('client_id', '=', clientId)
    .execute();
}

/** The redirect URIs and client authentication registered for the app's client. */
export async function clientSettingsOf(
  db: DbOrTrx,
  organizationId: string,
  clientId: string,
): Promise<{ redirectUris: string[]; tokenEndpointAuthMethod: string }> {
  const row = await db
    .selectFrom('oidc_clients')
    .select('metadata')
    .where('organization_id', '=', organizationId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  const metadata = (row?.metadata ?? {}) as { redirect_uris?: unknown; token_endpoint_auth_method?: unknown };
  return {
    redirectUris: Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris.map(String) : [],
    tokenEndpointAuthMethod: String(metadata.token_endpoint_auth_method ?? 'client_secret_basic'),
  };
}

/**
 * Revokes everything the provider issued to the client: grants, authorization codes, access
 * and refresh tokens (every such payload carries `clientId`). Its refresh tokens fail from now on.
 */
export async function revokeClientArtifacts(db: DbOrTrx, clientId: string): Promise<void> {
  await db
    .deleteFrom('oidc_payloads')
    .where(sql<string>`payload->>'clientId'`, '=', clientId)
    .execute();
}

export async function deleteAppClient(db: DbOrTrx, organizationId: string, clientId: string): Promise<void> {
  await db
    .deleteFrom('oidc_clients')
    .where('organization_id', '=', organizationId)
    .where('client_id', '=', clientId)
    .execute();
}
