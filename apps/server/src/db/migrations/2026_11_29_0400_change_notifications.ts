import { sql, type Kysely } from 'kysely';

// Changes to what Atrium caches in each process (issue 18): a trigger sends `table:key` on the
// channel `atrium_changes` from the writing transaction, whoever writes (an app install, a secret
// rotation, an operator's SQL), and every process listening drops its copy (db/change-feed.ts).
// Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function atrium_notify_change() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        perform pg_notify('atrium_changes', tg_table_name || ':' || (to_jsonb(old) ->> tg_argv[0]));
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        perform pg_notify('atrium_changes', tg_table_name || ':' || (to_jsonb(new) ->> tg_argv[0]));
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger oidc_clients_changed after insert or update or delete on oidc_clients
    for each row execute function atrium_notify_change('client_id')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger oidc_clients_changed on oidc_clients`.execute(db);
  await sql`drop function atrium_notify_change()`.execute(db);
}
