import { sql, type Kysely } from 'kysely';

// Frozen once landed: add a new migration instead of editing this one.
// Needs identity's oidc_clients table (an earlier migration): every app is one OIDC client.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('apps')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    // The catalog entry it came from; image, colour and snippet follow the template.
    .addColumn('template_key', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('launch_url', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) =>
      c.notNull().unique().references('oidc_clients.client_id').onDelete('cascade'),
    )
    .addColumn('open_to_everyone', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Installed apps and the apps page list by title within one organisation.
  await db.schema
    .createIndex('apps_org_title_idx')
    .on('apps')
    .columns(['organization_id', 'title', 'id'])
    .execute();

  await db.schema
    .createTable('app_groups')
    .addColumn('app_id', 'uuid', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('group_id', 'uuid', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addPrimaryKeyConstraint('app_groups_pk', ['app_id', 'group_id'])
    .execute();
  // "Which apps may this user open" goes from the user's groups to their apps.
  await db.schema
    .createIndex('app_groups_group_idx')
    .on('app_groups')
    .columns(['group_id', 'app_id'])
    .execute();

  // Uninstalling an app revokes every grant, code and token issued to its client.
  await db.schema
    .createIndex('oidc_payloads_client_idx')
    .on('oidc_payloads')
    .expression(sql`(payload->>'clientId')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('oidc_payloads_client_idx').execute();
  await db.schema.dropTable('app_groups').execute();
  await db.schema.dropTable('apps').execute();
}
