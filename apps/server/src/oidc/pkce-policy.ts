import { errors, type Configuration } from 'oidc-provider';

/**
 * Client metadata (Atrium's own) that lets a confidential app sign in without PKCE. PKCE stays
 * required for every client without it. It exists because the Roundcube that Debian 12 ships
 * (1.6) sends no `code_challenge` and no `code_verifier`, and has no setting to add them: its
 * Mail template installs the app with this flag. Such an app still authenticates with its secret
 * at the token endpoint, its redirect URI is exact and Roundcube checks `state`, which is what
 * RFC 9700 §2.1.1 asks of a confidential client that does not use PKCE.
 */
export const PKCE_OPTIONAL = 'atrium_pkce_optional';

/** Whether an authorization request of this client must carry a PKCE code challenge. */
export function pkceRequired(client: object | undefined): boolean {
  return !(client && (client as Record<string, unknown>)[PKCE_OPTIONAL] === true);
}

/** oidc-provider keeps the flag on the client (it drops metadata it does not recognise). */
export const pkceClientMetadata: NonNullable<Configuration['extraClientMetadata']> = {
  properties: [PKCE_OPTIONAL],
  validator(_ctx, key, value) {
    if (key === PKCE_OPTIONAL && value !== undefined && typeof value !== 'boolean') {
      throw new errors.InvalidClientMetadata(`${PKCE_OPTIONAL} must be a boolean`);
    }
  },
};
