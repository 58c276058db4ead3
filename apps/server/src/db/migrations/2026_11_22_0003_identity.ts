import { sql, type Kysely } from 'kysely';

// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Every model of the OpenID Connect provider (sessions, grants, codes, tokens, interactions…),
  // one row per model instance, so they survive restarts and are shared by every process.
  await db.schema
    .createTable('oidc_payloads')
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('user_code', 'text')
    .addColumn('uid', 'text')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('consumed_at', 'timestamptz')
    .addPrimaryKeyConstraint('oidc_payloads_pk', ['type', 'id'])
    .execute();
  await db.schema.createIndex('oidc_payloads_grant_idx').on('oidc_payloads').column('grant_id').execute();
  await db.schema.createIndex('oidc_payloads_uid_idx').on('oidc_payloads').columns(['type', 'uid']).execute();
  await db.schema
    .createIndex('oidc_payloads_user_code_idx')
    .on('oidc_payloads')
    .columns(['type', 'user_code'])
    .execute();
  await db.schema.createIndex('oidc_payloads_expires_idx').on('oidc_payloads').column('expires_at').execute();
  // Sessions of one account, to end them all (suspension, password reset).
  await db.schema
    .createIndex('oidc_payloads_account_idx')
    .on('oidc_payloads')
    .expression(sql`type, (payload->>'accountId')`)
    .execute();

  // Signing keys (private JWKs), encrypted with a key derived from ATRIUM_SECRET.
  await db.schema
    .createTable('oidc_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('jwk_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    // A retired key still verifies (published in the JWKS) but no longer signs.
    .addColumn('retired_at', 'timestamptz')
    .execute();

  // OIDC clients: the console's own (organization_id null) and one per installed app.
  await db.schema
    .createTable('oidc_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('metadata', 'jsonb', (c) => c.notNull())
    .addColumn('client_secret_enc', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('oidc_clients_org_idx').on('oidc_clients').column('organization_id').execute();

  // One-time e-mail codes for any purpose (sign-in, password reset, sign-up); only an HMAC is kept.
  await db.schema
    .createTable('email_codes')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('purpose', 'text', (c) => c.notNull())
    // The lowercased e-mail address the code was sent to.
    .addColumn('identifier', 'text', (c) => c.notNull())
    // What the code is bound to, e.g. the provider interaction it completes.
    .addColumn('context', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('consumed_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('email_codes_lookup_idx')
    .on('email_codes')
    .columns(['purpose', 'identifier', 'created_at'])
    .execute();

  // Failed password attempts, per identifier and client address (docs/sign-in.md, "Limits").
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('sign_in_failures_identifier_idx')
    .on('sign_in_failures')
    .columns(['identifier', 'failed_at'])
    .execute();

  // Single-use tickets that sign a user in without password and code (sign-up, invitations).
  await db.schema
    .createTable('sign_in_tickets')
    // sha256 of the ticket; the ticket itself is never stored.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('consumed_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'sign_in_tickets',
    'sign_in_failures',
    'email_codes',
    'oidc_clients',
    'oidc_keys',
    'oidc_payloads',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
