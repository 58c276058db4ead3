import { sql, type Kysely } from 'kysely';

// Strong sign-in (issue 17): authenticator apps (TOTP, RFC 6238), recovery codes, and where a
// sign-in stands between the password and its second factor.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A code that did its job (used_at) apart from one that died unused (consumed_at alone): only
  // the unused ones count toward the hourly cap, so a person's seventh sign-in in an hour works.
  await db.schema.alterTable('email_codes').addColumn('used_at', 'timestamptz').execute();

  // One authenticator app per user. The secret is sealed with a key derived from ATRIUM_SECRET;
  // `confirmed_at` is null while the user has scanned it but not yet typed a first code.
  // `last_used_step` is the RFC 6238 time step of the last code accepted: a code of that step or
  // an earlier one is refused, so a code cannot be used twice (RFC 6238 §5.2).
  await db.schema
    .createTable('authenticator_apps')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'uuid', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'timestamptz')
    .addColumn('last_used_step', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // Ten single-use codes per user; only an HMAC of each is kept.
  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('recovery_codes_user_hash_idx')
    .on('recovery_codes')
    .columns(['user_id', 'code_hash'])
    .execute();

  // A sign-in whose password was right and whose second factor is still to come, by the
  // provider's interaction uid. Nothing here is shown before the password is verified.
  await db.schema
    .createTable('sign_in_progress')
    .addColumn('context', 'text', (c) => c.primaryKey())
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('factor', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_progress_expires_idx')
    .on('sign_in_progress')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('email_codes').dropColumn('used_at').execute();
  await db.schema.dropTable('sign_in_progress').execute();
  await db.schema.dropTable('recovery_codes').execute();
  await db.schema.dropTable('authenticator_apps').execute();
}
