import { sql, type Kysely } from 'kysely';

// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('domains')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    // ASCII (punycode), lowercase, no trailing dot; shown in Unicode by the console.
    .addColumn('name', 'text', (c) => c.notNull())
    // pending → verified, or pending → failed once the background re-checks give up (7 days).
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
    // Published as `atrium-verification=<token>` in a TXT record at the apex.
    .addColumn('verification_token', 'text', (c) => c.notNull())
    .addColumn('is_primary', 'boolean', (c) => c.notNull().defaultTo(false))
    // PKCS#8 PEM sealed with encryptSecret(deriveKey(secret, 'dkim')); never leaves the server.
    .addColumn('dkim_private_key_enc', 'text', (c) => c.notNull())
    // Base64 SPKI DER: the p= tag of the published DKIM record.
    .addColumn('dkim_public_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('verified_at', 'timestamptz')
    .addColumn('last_checked_at', 'timestamptz')
    // The outcome of the last check ({ outcome, message, found?, failure? }), shown on the list.
    .addColumn('last_check', 'jsonb')
    // When the background job may check this pending domain next; claimed with SKIP LOCKED.
    .addColumn('next_check_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('domains_state_check', sql`state in ('pending', 'verified', 'failed')`)
    .addCheckConstraint('domains_primary_verified_check', sql`not is_primary or state = 'verified'`)
    // An organisation adds a name once; the list is sorted by name.
    .addUniqueConstraint('domains_org_name_unique', ['organization_id', 'name'])
    .execute();

  // Several organisations may try the same name, but only one can prove it.
  await db.schema
    .createIndex('domains_verified_name_unique')
    .on('domains')
    .column('name')
    .unique()
    .where(sql.ref('state'), '=', 'verified')
    .execute();
  await db.schema
    .createIndex('domains_org_primary_unique')
    .on('domains')
    .column('organization_id')
    .unique()
    .where(sql.ref('is_primary'), '=', true)
    .execute();
  // The background job's claim: due pending domains, oldest first.
  await db.schema
    .createIndex('domains_pending_due_idx')
    .on('domains')
    .columns(['next_check_at', 'id'])
    .where(sql.ref('state'), '=', 'pending')
    .execute();

  // The deletion check finds the users whose address is on a domain without scanning them all.
  await sql`create index users_org_email_domain_idx on users (organization_id, (split_part(email, '@', 2)))`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists users_org_email_domain_idx`.execute(db);
  await db.schema.dropTable('domains').execute();
}
