import { sql, type Kysely } from 'kysely';

// Mail addresses (issue 14, item 3): every address mail can arrive at, in one table whose unique
// index makes an address unique across the whole deployment, even under concurrent requests.
//   primary    a user's own address (users.email), kept here by a trigger on users
//   alias      an extra address of a user, on one of the organisation's verified domains
//   group      a group's address: a distribution list to its members
//   catch_all  `@domain`: any other address on the domain, delivered to one user or group
// Users' addresses live in `users` (the sign-in identifier); the trigger copies each into this
// table in the same transaction, so a user added with an alias's address (or the other way round)
// fails on this table's unique index, reported as users_email_key like any taken address.
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_addresses')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    // Lowercased; `@domain` for a catch-all.
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    // Null for primary addresses (a user's address may predate its domain's verification).
    .addColumn('domain_id', 'uuid', (c) => c.references('domains.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('group_id', 'uuid', (c) => c.references('groups.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('mail_addresses_address_key', ['address'])
    .addCheckConstraint(
      'mail_addresses_kind_check',
      sql`(kind = 'primary' and user_id is not null and group_id is null and domain_id is null)
        or (kind = 'alias' and user_id is not null and group_id is null and domain_id is not null)
        or (kind = 'group' and group_id is not null and user_id is null and domain_id is not null)
        or (kind = 'catch_all' and domain_id is not null and (user_id is null) <> (group_id is null))`,
    )
    .execute();
  // One address per group; a user's aliases and the cascades from users, groups and domains.
  await sql`create unique index mail_addresses_group_key on mail_addresses (group_id) where kind = 'group'`.execute(
    db,
  );
  await db.schema
    .createIndex('mail_addresses_user_idx')
    .on('mail_addresses')
    .columns(['user_id', 'kind'])
    .execute();
  await db.schema.createIndex('mail_addresses_group_idx').on('mail_addresses').column('group_id').execute();
  await db.schema.createIndex('mail_addresses_domain_idx').on('mail_addresses').column('domain_id').execute();
  // Mail Settings' lists: an organisation's aliases by address, searched by prefix, keyset-paged.
  await sql`create index mail_addresses_org_kind_address_idx on mail_addresses (organization_id, kind, address text_pattern_ops)`.execute(
    db,
  );

  await sql`
    create function atrium_user_mail_address() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into mail_addresses (organization_id, address, kind, user_id)
        values (new.organization_id, new.email, 'primary', new.id);
      elsif new.email is distinct from old.email then
        update mail_addresses set address = new.email where user_id = new.id and kind = 'primary';
      end if;
      return null;
    exception when unique_violation then
      -- Taken by an alias, a group or another user: the same error as users' own unique key.
      raise exception using errcode = 'unique_violation', constraint = 'users_email_key',
        message = format('The address %s is already in use', new.email);
    end $$`.execute(db);
  await sql`
    create trigger users_mail_address after insert or update of email on users
    for each row execute function atrium_user_mail_address()`.execute(db);
  await sql`
    insert into mail_addresses (organization_id, address, kind, user_id, created_at)
    select organization_id, email, 'primary', id, created_at from users`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger users_mail_address on users`.execute(db);
  await sql`drop function atrium_user_mail_address()`.execute(db);
  await db.schema.dropTable('mail_addresses').execute();
}
