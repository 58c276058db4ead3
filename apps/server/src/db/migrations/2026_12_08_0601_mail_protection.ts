import { sql, type Kysely } from 'kysely';

// Spam protection and sending limits (issue 44): each organisation's spam sensitivity and
// greylisting, the allow and block lists of senders (an organisation's and each user's own), the
// hourly sending windows Postfix's policy requests count in, and one version number that rspamd's
// map polls compare (an unchanged version is a 304 without building anything).
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A row only once an admin changes something: no row is the default (Standard, greylisting on).
  await db.schema
    .createTable('mail_spam_settings')
    .addColumn('organization_id', 'uuid', (c) =>
      c.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('sensitivity', 'text', (c) =>
      c.notNull().check(sql`sensitivity in ('relaxed', 'standard', 'strict')`),
    )
    .addColumn('greylisting', 'boolean', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // user_id null: the organisation's list; otherwise that user's own. value: an address or a domain.
  await db.schema
    .createTable('mail_sender_lists')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'uuid', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('list', 'text', (c) => c.notNull().check(sql`list in ('allow', 'block')`))
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Each unique index is also the keyset order of its list's pages (value after the cursor).
  await sql`create unique index mail_sender_lists_org_key on mail_sender_lists (organization_id, list, value)
    where user_id is null`.execute(db);
  await sql`create unique index mail_sender_lists_user_key on mail_sender_lists (user_id, list, value)
    where user_id is not null`.execute(db);

  // The sending window a user or an organisation is in: it starts with the first recipient counted
  // and lasts an hour; `notified`: the admins were told of a held message in this window.
  for (const [table, key, references] of [
    ['mail_sending_users', 'user_id', 'users.id'],
    ['mail_sending_organizations', 'organization_id', 'organizations.id'],
  ] as const) {
    await db.schema
      .createTable(table)
      .addColumn(key, 'uuid', (c) => c.primaryKey().references(references).onDelete('cascade'))
      .addColumn('window_started_at', 'timestamptz', (c) => c.notNull())
      .addColumn('recipients', 'integer', (c) => c.notNull())
      .addColumn('notified', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
  }

  await db.schema
    .createTable('mail_policy_version')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('changed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`insert into mail_policy_version (id, version) values (1, 1)`.execute(db);
  await sql`
    create function atrium_mail_policy_changed() returns trigger language plpgsql as $$
    begin
      update mail_policy_version set version = version + 1, changed_at = now() where id = 1;
      return null;
    end $$`.execute(db);
  // What rspamd's maps are built from: the settings and lists, the verified domains they are keyed
  // by, and users' addresses (users' own lists are keyed by them).
  for (const [table, events] of [
    ['mail_spam_settings', 'insert or update or delete'],
    ['mail_sender_lists', 'insert or update or delete'],
    ['domains', 'insert or update of state, name or delete'],
    ['users', 'update of email'],
  ] as const) {
    await sql`${sql.raw(`create trigger ${table}_mail_policy after ${events} on ${table}`)}
      for each statement execute function atrium_mail_policy_changed()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['mail_spam_settings', 'mail_sender_lists', 'domains', 'users']) {
    await sql.raw(`drop trigger ${table}_mail_policy on ${table}`).execute(db);
  }
  await sql`drop function atrium_mail_policy_changed()`.execute(db);
  for (const table of [
    'mail_policy_version',
    'mail_sending_organizations',
    'mail_sending_users',
    'mail_sender_lists',
    'mail_spam_settings',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
