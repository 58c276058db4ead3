import { sql, type Kysely } from 'kysely';

// The provider's models are stored under a SHA-256 of their id (oidc/adapter.ts, storedIdOf), and
// their payload no longer repeats the id as `jti`: access and refresh tokens, codes and session
// ids are credentials. Rows written before keep working (live sessions survive the upgrade).
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update oidc_payloads
    set id = encode(sha256(convert_to(id, 'UTF8')), 'hex'), payload = payload - 'jti'`.execute(db);
}
