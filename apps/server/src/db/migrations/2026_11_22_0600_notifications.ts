import { sql, type Kysely } from 'kysely';

// Indexes behind the notifications dropdown and the activity filters, and the activity log's
// append-only guard. Frozen once landed: add a new migration instead of editing this one.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The header badge counts unread notifications on every poll: a partial index keeps that to
  // the few unread rows of one user however many read ones pile up.
  await sql`create index notifications_user_unread_idx on notifications (user_id) where read_at is null`.execute(
    db,
  );

  // Each activity filter keeps the list's order (newest first, id as tie-break) so a keyset
  // page is an index range scan: by actor, by kind (the part of the action before its first
  // dot, e.g. 'domain'), and by one exact action (e.g. 'domain.verified').
  await sql`create index activity_log_org_actor_idx
    on activity_log (organization_id, actor_user_id, created_at desc, id desc)`.execute(db);
  await sql`create index activity_log_org_kind_idx
    on activity_log (organization_id, (split_part(action, '.', 1)), created_at desc, id desc)`.execute(db);
  await sql`create index activity_log_org_action_idx
    on activity_log (organization_id, action, created_at desc, id desc)`.execute(db);

  // The log is evidence, so the database itself refuses to rewrite it, whatever the code does.
  // The one way rows leave is the organisation's own deletion: that DELETE arrives through the
  // foreign key's cascade, which runs inside the referential-integrity trigger, one level deeper
  // than a DELETE issued by a statement.
  await sql`create function activity_log_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' and pg_trigger_depth() > 1 then
        return old;
      end if;
      raise exception 'activity_log is append-only: % is not allowed', tg_op
        using errcode = 'insufficient_privilege';
    end
  $$`.execute(db);
  await sql`create trigger activity_log_append_only before update or delete on activity_log
    for each row execute function activity_log_append_only()`.execute(db);
  await sql`create trigger activity_log_no_truncate before truncate on activity_log
    for each statement execute function activity_log_append_only()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger activity_log_no_truncate on activity_log`.execute(db);
  await sql`drop trigger activity_log_append_only on activity_log`.execute(db);
  await sql`drop function activity_log_append_only()`.execute(db);
  await sql`drop index activity_log_org_action_idx`.execute(db);
  await sql`drop index activity_log_org_kind_idx`.execute(db);
  await sql`drop index activity_log_org_actor_idx`.execute(db);
  await sql`drop index notifications_user_unread_idx`.execute(db);
}
