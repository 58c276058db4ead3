import { sql, type Kysely } from 'kysely';

// Mail apps installed before the Mail template said `requirePkce: false` get the client flag that
// install now writes (oidc/pkce-policy.ts), so the Roundcube behind them can sign in: Debian 12's
// Roundcube sends no PKCE. Every other app keeps PKCE required.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update oidc_clients set metadata = metadata || '{"atrium_pkce_optional": true}'::jsonb
    where client_id in (select client_id from apps where template_key = 'mail')
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update oidc_clients set metadata = metadata - 'atrium_pkce_optional'`.execute(db);
}
