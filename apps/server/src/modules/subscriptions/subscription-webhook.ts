import { createHmac, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { enqueue } from '../jobs/jobs.repository.ts';
import type { SubscriptionState } from './subscriptions.repository.ts';
import type { JobWorker } from '../jobs/job-worker.ts';
import { organizationOf } from './subscriptions.repository.ts';

export const SUBSCRIPTION_WEBHOOK_JOB = 'subscription.webhook';
/** 10 s, 20 s, 40 s… capped at an hour: about a day of tries before a delivery is given up. */
const BACKOFF = { baseMs: 10_000, capMs: 60 * 60_000 };
const MAX_ATTEMPTS = 30;
const TIMEOUT_MS = 10_000;

export const SIGNATURE_HEADER = 'x-atrium-signature';

export type WebhookEvent =
  | 'subscription.created'
  | 'subscription.changed'
  | 'subscription.seats_exhausted'
  | 'subscription.trial_ended';

/** `sha256=<hex>`: HMAC-SHA256 of the exact body with SUBSCRIPTION_WEBHOOK_SECRET. */
export function signWebhookBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Queues one event for the billing system, in the caller's transaction: it goes out exactly when
 * the change commits. Without SUBSCRIPTION_WEBHOOK_URL nothing is queued.
 */
export async function queueSubscriptionWebhook(
  trx: DbOrTrx,
  config: Pick<Config, 'subscriptionWebhook'>,
  organizationId: string,
  event: WebhookEvent,
  data: Record<string, unknown>,
): Promise<void> {
  const webhook = config.subscriptionWebhook;
  if (!webhook) return;
  const organization = await organizationOf(trx, organizationId);
  const id = randomUUID();
  const body = JSON.stringify({
    id,
    type: event,
    createdAt: new Date().toISOString(),
    organization: { id: organization.id, name: organization.name, siteName: organization.site_name },
    data,
  });
  await trx
    .insertInto('subscription_webhook_deliveries')
    .values({ id, organization_id: organizationId, event, body, url: webhook.url })
    .execute();
  await enqueue(trx, {
    kind: SUBSCRIPTION_WEBHOOK_JOB,
    payload: { deliveryId: id },
    maxAttempts: MAX_ATTEMPTS,
    organizationId,
  });
}

/**
 * The deliveries: each try POSTs the stored body, signed, and writes its outcome to the delivery
 * log; anything but a 2xx answer is a failed try, retried by the queue with backoff. The event id
 * (also in X-Atrium-Delivery) lets the receiver ignore a delivery it has already processed.
 */
export function registerSubscriptionWebhookJob(
  worker: JobWorker,
  deps: { db: Db; config: Pick<Config, 'subscriptionWebhook'>; log: FastifyBaseLogger },
): void {
  worker.register(
    SUBSCRIPTION_WEBHOOK_JOB,
    async (payload, { job, log }) => {
      const { deliveryId } = payload as { deliveryId: string };
      const delivery = await deps.db
        .selectFrom('subscription_webhook_deliveries')
        .selectAll()
        .where('id', '=', deliveryId)
        .executeTakeFirst();
      // The organisation was deleted since, and its log with it; or it went out already.
      if (!delivery || delivery.status === 'delivered') return;
      // The secret is read now, not stored: a rotated secret signs the retries.
      const secret = deps.config.subscriptionWebhook?.secret;
      if (!secret) return;
      let statusCode: number | null = null;
      let problem: string | null = null;
      try {
        const response = await fetch(delivery.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Atrium-Webhook/1',
            'x-atrium-event': delivery.event,
            'x-atrium-delivery': delivery.id,
            [SIGNATURE_HEADER]: signWebhookBody(secret, delivery.body),
          },
          body: delivery.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        statusCode = response.status;
        await response.body?.cancel();
        if (statusCode < 200 || statusCode > 299) problem = `The receiver answered ${statusCode}`;
      } catch (error) {
        problem = `The receiver could not be reached (${(error as Error).message})`;
      }
      const lastTry = job.attempts >= job.max_attempts;
      await deps.db
        .updateTable('subscription_webhook_deliveries')
        .set({
          attempts: job.attempts,
          last_status_code: statusCode,
          last_error: problem,
          last_attempt_at: sql`now()`,
          status: problem ? (lastTry ? 'failed' : 'pending') : 'delivered',
          delivered_at: problem ? null : sql`now()`,
        })
        .where('id', '=', delivery.id)
        .execute();
      if (problem) throw new Error(problem);
      log.info({ delivery: delivery.id, event: delivery.event }, 'subscription webhook delivered');
    },
    { backoff: BACKOFF, lockSeconds: 30 },
  );
}

/** The subscription as the billing system reads it in every event. */
export function webhookView(state: SubscriptionState) {
  return {
    plan: state.plan_key,
    seats: state.seats,
    status: state.status,
    trialEndsAt: state.trial_ends_at?.toISOString() ?? null,
    renewsAt: state.renews_at?.toISOString() ?? null,
  };
}
