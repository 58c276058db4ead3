import { sql, type Kysely } from 'kysely';

// Issue 30, item 11: the header search finds a user by any part of the name or address ("acme"
// in ada@acme.example finds Ada). A trigram index (pg_trgm, in PGlite as in PostgreSQL, where it
// is a trusted extension the database's owner may create) answers LIKE '%text%' from the index.
// Frozen once landed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`create index users_search_trgm_idx on users
    using gin ((name_key || ' ' || lower(email)) gin_trgm_ops)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index users_search_trgm_idx`.execute(db);
}
