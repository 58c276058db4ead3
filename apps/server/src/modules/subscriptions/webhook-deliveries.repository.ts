import { sql, type Selectable } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import type { SubscriptionWebhookDeliveriesTable } from '../../db/subscription-tables.ts';

export type WebhookDelivery = Selectable<SubscriptionWebhookDeliveriesTable>;

/**
 * The organisation's next event number, and its name for the body. Counted on the subscription
 * row, which the event's transaction holds already (locked, or inserted for `created`): a
 * concurrent event waits for this one to commit, so numbers follow commit order.
 */
export async function takeNextSequence(trx: DbOrTrx, organizationId: string) {
  return trx
    .updateTable('subscriptions')
    .set({ webhook_sequence: sql`webhook_sequence + 1` })
    .from('organizations')
    .whereRef('organizations.id', '=', 'subscriptions.organization_id')
    .where('subscriptions.organization_id', '=', organizationId)
    .returning(['organizations.id', 'organizations.name', 'organizations.site_name', 'webhook_sequence'])
    .executeTakeFirstOrThrow();
}

export async function insertDelivery(
  trx: DbOrTrx,
  delivery: Pick<WebhookDelivery, 'id' | 'organization_id' | 'event' | 'body' | 'url' | 'sequence'>,
): Promise<void> {
  await trx.insertInto('subscription_webhook_deliveries').values(delivery).execute();
}

export function findDelivery(db: DbOrTrx, id: string): Promise<WebhookDelivery | undefined> {
  return db.selectFrom('subscription_webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The organisation's first event before this one that is neither delivered nor given up. */
export function firstUnfinishedBefore(db: DbOrTrx, delivery: WebhookDelivery) {
  return db
    .selectFrom('subscription_webhook_deliveries')
    .select(['id', 'sequence'])
    .where('organization_id', '=', delivery.organization_id)
    .where('sequence', '<', delivery.sequence)
    .where('status', '=', 'pending')
    .orderBy('sequence')
    .limit(1)
    .executeTakeFirst();
}

export async function recordTry(
  db: DbOrTrx,
  id: string,
  outcome: {
    attempts: number;
    statusCode: number | null;
    problem: string | null;
    status: 'pending' | 'delivered' | 'failed';
  },
): Promise<void> {
  await db
    .updateTable('subscription_webhook_deliveries')
    .set({
      attempts: outcome.attempts,
      last_status_code: outcome.statusCode,
      last_error: outcome.problem,
      last_attempt_at: sql`now()`,
      status: outcome.status,
      delivered_at: outcome.status === 'delivered' ? sql`now()` : null,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Makes the job of the organisation's next unfinished event due now: it was waiting for this one.
 * True when there was one to wake.
 */
export async function wakeNextDelivery(
  db: DbOrTrx,
  delivery: WebhookDelivery,
  kind: string,
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ run_at: sql`now()`, updated_at: sql`now()` })
    .where('kind', '=', kind)
    .where('organization_id', '=', delivery.organization_id)
    .where('status', '=', 'queued')
    .where(sql<string>`payload ->> 'deliveryId'`, '=', (eb) =>
      eb
        .selectFrom('subscription_webhook_deliveries')
        .select(sql<string>`id::text`.as('id'))
        .where('organization_id', '=', delivery.organization_id)
        .where('sequence', '>', delivery.sequence)
        .where('status', '=', 'pending')
        .orderBy('sequence')
        .limit(1),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
