import { sql, type Kysely } from 'kysely';

// Frozen once landed: add a new migration instead of editing this one.
// The browsers each user has signed in from, so a sign-in from a new one can be told to its
// owner by e-mail. Only a hash of the browser's device cookie is kept.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('known_devices')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // sha256 of the device cookie; the cookie itself is never stored.
    .addColumn('device_hash', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // One row per user and browser; every sign-in looks it up by exactly this pair.
  await db.schema
    .createIndex('known_devices_user_device_idx')
    .on('known_devices')
    .columns(['user_id', 'device_hash'])
    .unique()
    .execute();
  // The purge of browsers not seen for longer than the cookie lives.
  await db.schema
    .createIndex('known_devices_last_seen_idx')
    .on('known_devices')
    .column('last_seen_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('known_devices').execute();
}
