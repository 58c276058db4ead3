import { timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { deriveKey } from '../../lib/crypto.ts';
import { openClientSecret, sealClientSecret } from '../../oidc/client-secrets.ts';

/**
 * Dovecot's own client of Atrium's provider. No organisation owns it, so it may introspect any
 * access token (oidc/introspection.ts) — the tokens webmail and mail apps present at IMAP — and
 * it authenticates Dovecot's app-password grants. It signs nobody in: no grant or response types.
 */
export const MAIL_CLIENT_ID = 'atrium-mail';

export interface MailClient {
  clientId: string;
  clientSecret: string;
}

/**
 * The client's credentials, derived from ATRIUM_SECRET (as the master user's password,
 * config/mail-master-user.ts): `mail-config` writes them into Dovecot's files without opening the
 * database, which the running server may hold (the embedded one cannot be opened twice).
 */
export function mailClient(config: Pick<Config, 'secret'>): MailClient {
  return {
    clientId: MAIL_CLIENT_ID,
    clientSecret: deriveKey(config.secret, 'dovecot-mail-client').export().toString('base64url'),
  };
}

/**
 * Registers the client with the derived secret (idempotent, safe for concurrent starts); a row
 * with another secret (a random one from before it was derived, or sealed under an earlier
 * ATRIUM_SECRET) is updated to it, so Dovecot's files from `mail-config` match again.
 */
export async function ensureMailClient(db: Db, config: Config): Promise<MailClient> {
  const client = mailClient(config);
  const metadata = JSON.stringify({
    client_name: 'Atrium mail service (Dovecot)',
    redirect_uris: [],
    grant_types: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  await db
    .insertInto('oidc_clients')
    .values({
      client_id: MAIL_CLIENT_ID,
      organization_id: null,
      metadata,
      client_secret_enc: sealClientSecret(config, client.clientSecret),
    })
    .onConflict((oc) => oc.column('client_id').doNothing())
    .execute();
  const row = await db
    .selectFrom('oidc_clients')
    .select('client_secret_enc')
    .where('client_id', '=', MAIL_CLIENT_ID)
    .executeTakeFirstOrThrow();
  if (storedSecret(config, row.client_secret_enc) !== client.clientSecret) {
    await db
      .updateTable('oidc_clients')
      .set({ client_secret_enc: sealClientSecret(config, client.clientSecret) })
      .where('client_id', '=', MAIL_CLIENT_ID)
      .execute();
  }
  return client;
}

/** The stored secret, or null when there is none or it was sealed under another ATRIUM_SECRET. */
function storedSecret(config: Config, sealed: string | null): string | null {
  if (!sealed) return null;
  try {
    return openClientSecret(config, sealed);
  } catch {
    return null;
  }
}

/** Whether these are the mail client's credentials (constant time on the secret). */
export function isMailClient(
  client: MailClient,
  id: string | undefined,
  secret: string | undefined,
): boolean {
  if (id !== client.clientId || secret === undefined) return false;
  const a = Buffer.from(secret);
  const b = Buffer.from(client.clientSecret);
  return a.length === b.length && timingSafeEqual(a, b);
}
