import { sql, type Kysely } from 'kysely';

// The organisation's address book, served by Atrium itself (issue 43, modules/dav/directory-*,
// docs/dav.md) instead of a copy written into every account by the `dav.address-book` job.
//
// - `directory_versions`: one change counter per organisation. Its value is the address book's
//   sync token and ctag. A statement that changes the directory takes the organisation's row
//   (upsert), so versions are handed out in commit order: a reader never sees version n before
//   every change numbered n or less has committed.
// - `directory_cards`: one row per card the address book holds or held (a person: `user`, a group
//   address: `address`), with the version of its last change (its ETag) and whether it is still
//   there. A sync from token t is "the rows of version > t"; a row no longer present is answered
//   as removed. The cards' text is made from users, mail_addresses and groups when asked for.
//
// Triggers keep both in the changing transaction, whoever writes (the console, an import, SCIM,
// an operator's SQL). They are statement-level, so an import of 100,000 users bumps the counter
// once. A change that shows in no card (a sign-in's `last_sign_in_at`, an invited user) bumps
// nothing. Storage grows with the organisation (one row per card), not with its square.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The old design's triggers, functions and jobs go.
  for (const name of [
    'users_address_book_insert on users',
    'users_address_book_update on users',
    'users_address_book_delete on users',
    'mail_addresses_address_book_insert on mail_addresses',
    'mail_addresses_address_book_update on mail_addresses',
    'mail_addresses_address_book_delete on mail_addresses',
    'groups_address_book_update on groups',
  ]) {
    await sql.raw(`drop trigger if exists ${name}`).execute(db);
  }
  await sql`drop function if exists atrium_queue_address_book()`.execute(db);
  await sql`drop function if exists atrium_queue_address_book_for_users()`.execute(db);
  await sql`drop function if exists atrium_queue_address_books(uuid[])`.execute(db);
  await sql`delete from jobs where kind = 'dav.address-book' and status <> 'running'`.execute(db);

  await db.schema
    .createTable('directory_versions')
    .addColumn('organization_id', 'uuid', (c) =>
      c.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('directory_cards')
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('user', 'address')`))
    // users.id or mail_addresses.id; no foreign key: a removed card's row outlives its source.
    .addColumn('source_id', 'uuid', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('present', 'boolean', (c) => c.notNull())
    .addPrimaryKeyConstraint('directory_cards_pkey', ['organization_id', 'kind', 'source_id'])
    .execute();
  // A sync reads the rows changed since its token.
  await sql`create index directory_cards_changes_idx on directory_cards (organization_id, version)`.execute(
    db,
  );

  // Notes a change to these cards: each is judged present or not from its source now; those that
  // are or were present get the organisation's next version. One counter bump per statement.
  await sql`
    create function atrium_directory_touch(orgs uuid[], kinds text[], ids uuid[]) returns void
    language sql as $$
      with touched as (
        select distinct c.org, c.kind, c.id from unnest(orgs, kinds, ids) as c(org, kind, id)
        where c.id is not null
      ), judged as (
        select t.org, t.kind, t.id, case t.kind
          when 'user' then exists (
            select 1 from users u where u.id = t.id and u.organization_id = t.org and u.status = 'active')
          else exists (
            select 1 from mail_addresses m join groups g on g.id = m.group_id
            where m.id = t.id and m.organization_id = t.org and m.kind = 'group')
          end as present
        from touched t
        -- Not while the organisation itself is being deleted (its rows go by cascade).
        where exists (select 1 from organizations o where o.id = t.org)
      ), effective as (
        select j.* from judged j
        where j.present or exists (
          select 1 from directory_cards d
          where d.organization_id = j.org and d.kind = j.kind and d.source_id = j.id and d.present)
      ), bumped as (
        insert into directory_versions as v (organization_id, version)
        select distinct e.org, 1 from effective e
        on conflict (organization_id) do update set version = v.version + 1
        returning v.organization_id, v.version
      )
      insert into directory_cards as d (organization_id, kind, source_id, version, present)
      select e.org, e.kind, e.id, b.version, e.present from effective e join bumped b on b.organization_id = e.org
      on conflict (organization_id, kind, source_id)
        do update set version = excluded.version, present = excluded.present
    $$`.execute(db);

  // PostgreSQL takes no column list on a trigger with transition tables: updates compare rows.
  const functions: Record<string, string> = {
    atrium_directory_users_changed: `select array_agg(organization_id), array_agg('user'::text), array_agg(id) from changed`,
    atrium_directory_users_updated: `
      select array_agg(n.organization_id), array_agg('user'::text), array_agg(n.id)
      from changed n join previous p on p.id = n.id
      where (p.first_name, p.last_name, p.email, p.status) is distinct from (n.first_name, n.last_name, n.email, n.status)`,
    // An alias belongs to its user's card; a group address is a card of its own.
    atrium_directory_addresses_changed: `
      select array_agg(organization_id), array_agg(case kind when 'alias' then 'user' else 'address' end),
        array_agg(case kind when 'alias' then user_id else id end)
      from changed where kind in ('alias', 'group')`,
    atrium_directory_addresses_updated: `
      select array_agg(a.organization_id), array_agg(case a.kind when 'alias' then 'user' else 'address' end),
        array_agg(case a.kind when 'alias' then a.user_id else a.id end)
      from (select * from changed union all select * from previous) a
      where a.kind in ('alias', 'group')`,
    atrium_directory_groups_updated: `
      select array_agg(m.organization_id), array_agg('address'::text), array_agg(m.id)
      from changed n join previous p on p.id = n.id
      join mail_addresses m on m.group_id = n.id and m.kind = 'group'
      where n.name is distinct from p.name`,
    // The organisation's name is on every card.
    atrium_directory_organizations_updated: `
      select array_agg(d.organization_id), array_agg(d.kind), array_agg(d.source_id)
      from changed n join previous p on p.id = n.id
      join directory_cards d on d.organization_id = n.id and d.present
      where n.name is distinct from p.name`,
  };
  for (const [name, select] of Object.entries(functions)) {
    await sql
      .raw(
        `create function ${name}() returns trigger language plpgsql as $$
        declare orgs uuid[]; kinds text[]; ids uuid[];
        begin
          ${select.trim()} into orgs, kinds, ids;
          if orgs is not null then perform atrium_directory_touch(orgs, kinds, ids); end if;
          return null;
        end $$`,
      )
      .execute(db);
  }
  const triggers: [table: string, event: 'insert' | 'update' | 'delete', fn: string][] = [
    ['users', 'insert', 'atrium_directory_users_changed'],
    ['users', 'update', 'atrium_directory_users_updated'],
    ['users', 'delete', 'atrium_directory_users_changed'],
    ['mail_addresses', 'insert', 'atrium_directory_addresses_changed'],
    ['mail_addresses', 'update', 'atrium_directory_addresses_updated'],
    ['mail_addresses', 'delete', 'atrium_directory_addresses_changed'],
    ['groups', 'update', 'atrium_directory_groups_updated'],
    ['organizations', 'update', 'atrium_directory_organizations_updated'],
  ];
  for (const [table, event, fn] of triggers) {
    const tables =
      event === 'update'
        ? 'old table as previous new table as changed'
        : `${event === 'delete' ? 'old' : 'new'} table as changed`;
    await sql
      .raw(
        `create trigger ${table}_directory_${event} after ${event} on ${table} ` +
          `referencing ${tables} for each statement execute function ${fn}()`,
      )
      .execute(db);
  }

  // Today's directories, at version 1.
  await sql`insert into directory_versions (organization_id, version) select id, 1 from organizations`.execute(
    db,
  );
  await sql`
    insert into directory_cards (organization_id, kind, source_id, version, present)
    select organization_id, 'user', id, 1, true from users where status = 'active'
    union all
    select m.organization_id, 'address', m.id, 1, true
    from mail_addresses m join groups g on g.id = m.group_id where m.kind = 'group'`.execute(db);

  // The copies the old job wrote into every account are removed from Radicale once, by a job per
  // organisation that had any (modules/dav/directory-copies.job.ts), so the disk is freed.
  await sql`
    insert into jobs (kind, payload, organization_id, max_attempts)
    select 'dav.remove-directory-copies', jsonb_build_object('organizationId', a.organization_id), a.organization_id, 10
    from (select distinct organization_id from dav_accounts) a`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['users', 'mail_addresses']) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql.raw(`drop trigger ${table}_directory_${event} on ${table}`).execute(db);
    }
  }
  await sql`drop trigger groups_directory_update on groups`.execute(db);
  await sql`drop trigger organizations_directory_update on organizations`.execute(db);
  for (const name of [
    'atrium_directory_users_changed',
    'atrium_directory_users_updated',
    'atrium_directory_addresses_changed',
    'atrium_directory_addresses_updated',
    'atrium_directory_groups_updated',
    'atrium_directory_organizations_updated',
  ]) {
    await sql.raw(`drop function ${name}()`).execute(db);
  }
  await sql`drop function atrium_directory_touch(uuid[], text[], uuid[])`.execute(db);
  await db.schema.dropTable('directory_cards').execute();
  await db.schema.dropTable('directory_versions').execute();
}
