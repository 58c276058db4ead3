import { sql, type Kysely } from 'kysely';

// "Set up a device" (modules/devices, docs/devices.md): a one-time link to an Apple configuration
// profile, for a phone to open (QR code) or the same device to download. It holds the new app
// password sealed with a key derived from ATRIUM_SECRET until it is downloaded or expires;
// revoking the app password removes the link. Frozen once landed: add a new migration instead.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('device_profile_links')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('app_password_id', 'uuid', (c) =>
      c.notNull().references('app_passwords.id').onDelete('cascade'),
    )
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('password_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index device_profile_links_expiry_idx on device_profile_links (expires_at)`.execute(db);
  await sql`create index device_profile_links_user_idx on device_profile_links (user_id)`.execute(db);
  await sql`create index device_profile_links_app_password_idx on device_profile_links (app_password_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_profile_links').execute();
}
