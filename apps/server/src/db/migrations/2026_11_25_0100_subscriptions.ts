import { sql, type Kysely } from 'kysely';

// Subscriptions (docs/subscriptions.md): each organisation's plan, seats and status, their history,
// and the log of the webhook that tells a billing system. Frozen once landed.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per organisation, locked (FOR UPDATE) by every change that a limit could refuse.
  await db.schema
    .createTable('subscriptions')
    .addColumn('organization_id', 'uuid', (c) =>
      c.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('plan_key', 'text', (c) => c.notNull())
    .addColumn('seats', 'integer', (c) => c.notNull().check(sql`seats >= 1`))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trial_ends_at', 'timestamptz')
    .addColumn('renews_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'subscriptions_status_check',
      sql`status in ('trial', 'active', 'past_due', 'cancelled')`,
    )
    .execute();

  await db.schema
    .createTable('subscription_history')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    // No foreign key: the history outlives a deleted admin; the label says who it was.
    .addColumn('actor_user_id', 'uuid')
    .addColumn('actor_label', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('from_plan_key', 'text')
    .addColumn('from_seats', 'integer')
    .addColumn('from_status', 'text')
    .addColumn('plan_key', 'text', (c) => c.notNull())
    .addColumn('seats', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('subscription_history_source_check', sql`source in ('console', 'operator', 'system')`)
    .execute();
  // The page shows an organisation's newest changes first.
  await sql`create index subscription_history_org_idx
    on subscription_history (organization_id, created_at desc, id desc)`.execute(db);

  await db.schema
    .createTable('subscription_webhook_deliveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('organization_id', 'uuid', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_attempt_at', 'timestamptz')
    .addColumn('delivered_at', 'timestamptz')
    .addCheckConstraint(
      'subscription_webhook_deliveries_status_check',
      sql`status in ('pending', 'delivered', 'failed')`,
    )
    .execute();
  // The operator's delivery log: newest first, per organisation or all of them.
  await sql`create index subscription_webhook_deliveries_org_idx
    on subscription_webhook_deliveries (organization_id, created_at desc)`.execute(db);
  await sql`create index subscription_webhook_deliveries_created_idx
    on subscription_webhook_deliveries (created_at desc)`.execute(db);

  // Organisations from before plans existed keep working as they were: the built-in default plan
  // (Business), active rather than on trial, with at least as many seats as they have users.
  await sql`insert into subscriptions (organization_id, plan_key, seats, status, renews_at)
    select o.id, 'business', greatest(10, (select count(*) from users u where u.organization_id = o.id)),
           'active', now() + interval '1 month'
    from organizations o`.execute(db);
  await sql`insert into subscription_history
      (organization_id, actor_label, source, plan_key, seats, status)
    select organization_id, 'System', 'system', plan_key, seats, status from subscriptions`.execute(db);
}
