import { sql, type Kysely } from 'kysely';

// Frozen once landed: add a new migration instead of editing this one.
// The header search (GET /api/search) reads each kind by name prefix within one organisation, in
// name order, a few rows at a time. text_pattern_ops lets `LIKE 'abc%'` be an index range and
// `ORDER BY … USING ~<~` walk the same index whatever the database's collation is. Users are
// searched through the prefix indexes of the users list (2026_11_22_0500_users).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index groups_org_name_prefix_idx on groups (organization_id, name_key text_pattern_ops)`.execute(
    db,
  );
  await sql`create index domains_org_name_prefix_idx on domains (organization_id, name text_pattern_ops)`.execute(
    db,
  );
  await sql`create index apps_org_title_prefix_idx on apps (organization_id, lower(title) text_pattern_ops)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of [
    'apps_org_title_prefix_idx',
    'domains_org_name_prefix_idx',
    'groups_org_name_prefix_idx',
  ]) {
    await db.schema.dropIndex(index).execute();
  }
}
