import { timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { deriveKey } from '../../lib/crypto.ts';
import { newClientSecret, openClientSecret, sealClientSecret } from '../../oidc/client-secrets.ts';

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

/** Registers the client on first use (idempotent, safe for concurrent starts); returns its secret. */
export async function ensureMailClient(db: Db, config: Config): Promise<MailClient> {
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
      client_secret_enc: sealClientSecret(config, newClientSecret()),
    })
    .onConflict((oc) => oc.column('client_id').doNothing())
    .execute();
  const row = await db
    .selectFrom('oidc_clients')
    .select('client_secret_enc')
    .where('client_id', '=', MAIL_CLIENT_ID)
    .executeTakeFirstOrThrow();
  return { clientId: MAIL_CLIENT_ID, clientSecret: openClientSecret(config, row.client_secret_enc!) };
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

/** Placeholder until the derived secret lands (issue 31): the secret install writes for Dovecot. */
export const mailClient = (config: Config): MailClient => ({
  clientId: MAIL_CLIENT_ID,
  clientSecret: deriveKey(config.secret, 'atrium-mail-client').export().toString('base64url'),
});
