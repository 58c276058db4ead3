import { sql, type Kysely } from 'kysely';

// Issue 30: an organisation's webhook events go out in the order they happened. Each delivery
// carries its organisation's next number, counted on the subscription row that every event's
// transaction already holds, so numbers follow commit order. Frozen once landed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table subscriptions add column webhook_sequence bigint not null default 0`.execute(db);
  await sql`alter table subscription_webhook_deliveries add column sequence bigint`.execute(db);
  await sql`
    update subscription_webhook_deliveries d set sequence = numbered.n
    from (
      select id, row_number() over (partition by organization_id order by created_at, id) as n
      from subscription_webhook_deliveries
    ) numbered
    where numbered.id = d.id`.execute(db);
  await sql`
    update subscriptions s set webhook_sequence = coalesce(
      (select max(sequence) from subscription_webhook_deliveries d where d.organization_id = s.organization_id),
      0)`.execute(db);
  await sql`alter table subscription_webhook_deliveries alter column sequence set not null`.execute(db);
  // A delivery waits for the unfinished ones before it: found through this index.
  await sql`create unique index subscription_webhook_deliveries_sequence_idx
    on subscription_webhook_deliveries (organization_id, sequence)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index subscription_webhook_deliveries_sequence_idx`.execute(db);
  await sql`alter table subscription_webhook_deliveries drop column sequence`.execute(db);
  await sql`alter table subscriptions drop column webhook_sequence`.execute(db);
}
