import { sql, type Kysely } from 'kysely';

// The organisation's address book in every user's CalDAV/CardDAV account (modules/dav,
// docs/dav.md). `dav_accounts` lists the users whose collections Radicale holds (made on their
// first request), and so who gets a copy. Triggers queue one `dav.address-book` job per
// organisation when its directory changes, whoever changes it (the console, an import, SCIM, an
// operator's SQL), in the changing transaction; statement-level, so an import of 100,000 users
// queues one job, not 100,000. Organisations without a DAV account queue nothing.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dav_accounts')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index dav_accounts_organization_idx on dav_accounts (organization_id)`.execute(db);

  // Queues the job for these organisations, when they have DAV accounts and none is waiting.
  await sql`
    create function atrium_queue_address_books(organizations uuid[]) returns void language sql as $$
      insert into jobs (kind, payload, organization_id, max_attempts)
      select 'dav.address-book', jsonb_build_object('organizationId', c.id), c.id, 10
      from unnest(organizations) as c(id)
      where exists (select 1 from dav_accounts a where a.organization_id = c.id)
        -- Not while the organisation itself is being deleted (its rows go by cascade).
        and exists (select 1 from organizations o where o.id = c.id)
        and not exists (
          select 1 from jobs j where j.organization_id = c.id and j.kind = 'dav.address-book' and j.status = 'queued'
        )
    $$`.execute(db);
  await sql`
    create function atrium_queue_address_book() returns trigger language plpgsql as $$
    begin
      perform atrium_queue_address_books(array(select distinct organization_id from changed));
      return null;
    end $$`.execute(db);
  // Updates of users: only those that change what the address book shows (not the write of every
  // sign-in). PostgreSQL takes no column list on a trigger with transition tables, so the rows
  // are compared here.
  await sql`
    create function atrium_queue_address_book_for_users() returns trigger language plpgsql as $$
    begin
      perform atrium_queue_address_books(array(
        select distinct n.organization_id from changed n join previous p on p.id = n.id
        where (p.first_name, p.last_name, p.email, p.status) is distinct from (n.first_name, n.last_name, n.email, n.status)
      ));
      return null;
    end $$`.execute(db);
  await sql`
    create trigger users_address_book_update after update on users
    referencing old table as previous new table as changed
    for each statement execute function atrium_queue_address_book_for_users()`.execute(db);
  // The rest: users coming and going, aliases and group addresses, group names.
  const triggers: [table: string, event: 'insert' | 'update' | 'delete'][] = [
    ['users', 'insert'],
    ['users', 'delete'],
    ['mail_addresses', 'insert'],
    ['mail_addresses', 'update'],
    ['mail_addresses', 'delete'],
    ['groups', 'update'],
  ];
  for (const [table, event] of triggers) {
    const rows = event === 'delete' ? 'old' : 'new';
    await sql
      .raw(
        `create trigger ${table}_address_book_${event} after ${event} on ${table} ` +
          `referencing ${rows} table as changed for each statement execute function atrium_queue_address_book()`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of [
    'users_address_book_insert on users',
    'users_address_book_update on users',
    'users_address_book_delete on users',
    'mail_addresses_address_book_insert on mail_addresses',
    'mail_addresses_address_book_update on mail_addresses',
    'mail_addresses_address_book_delete on mail_addresses',
    'groups_address_book_update on groups',
  ]) {
    await sql.raw(`drop trigger ${name}`).execute(db);
  }
  await sql`drop function atrium_queue_address_book()`.execute(db);
  await sql`drop function atrium_queue_address_book_for_users()`.execute(db);
  await sql`drop function atrium_queue_address_books(uuid[])`.execute(db);
  await db.schema.dropTable('dav_accounts').execute();
}
