import { createHmac, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { enqueue } from '../jobs/jobs.repository.ts';
import type { SubscriptionState } from './subscriptions.repository.ts';
import { DeferredJob, PermanentJobError, type JobWorker } from '../jobs/job-worker.ts';
import {
  findDelivery,
  firstUnfinishedBefore,
  insertDelivery,
  recordTry,
  takeNextSequence,
  wakeNextDelivery,
  type WebhookDelivery,
} from './webhook-deliveries.repository.ts';

export const SUBSCRIPTION_WEBHOOK_JOB = 'subscription.webhook';
/** 10 s, 20 s, 40 s… capped at an hour: about a day of tries before a delivery is given up. */
const BACKOFF = { baseMs: 10_000, capMs: 60 * 60_000 };
const MAX_ATTEMPTS = 30;
const TIMEOUT_MS = 10_000;
/** How long an event waits before looking again whether the earlier one has ended; its end wakes it sooner. */
const WAIT_FOR_EARLIER_MS = 60_000;

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
 * the change commits. The caller's transaction holds the organisation's subscription row (locked,
 * or inserted for `subscription.created`). Without SUBSCRIPTION_WEBHOOK_URL nothing is queued.
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
  const organization = await takeNextSequence(trx, organizationId);
  const id = randomUUID();
  const sequence = organization.webhook_sequence;
  const body = JSON.stringify({
    id,
    type: event,
    sequence,
    createdAt: new Date().toISOString(),
    organization: { id: organization.id, name: organization.name, siteName: organization.site_name },
    data,
  });
  await insertDelivery(trx, { id, organization_id: organizationId, event, body, url: webhook.url, sequence });
  await enqueue(trx, {
    kind: SUBSCRIPTION_WEBHOOK_JOB,
    payload: { deliveryId: id },
    maxAttempts: MAX_ATTEMPTS,
    organizationId,
  });
}

/** One POST of the stored body, signed: the receiver's status, or why it could not be reached. */
async function post(delivery: WebhookDelivery, secret: string) {
  try {
    const response = await fetch(delivery.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Atrium-Webhook/1',
        'x-atrium-event': delivery.event,
        'x-atrium-delivery': delivery.id,
        'x-atrium-sequence': String(delivery.sequence),
        [SIGNATURE_HEADER]: signWebhookBody(secret, delivery.body),
      },
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await response.body?.cancel();
    const ok = response.status >= 200 && response.status <= 299;
    return { statusCode: response.status, problem: ok ? null : `The receiver answered ${response.status}` };
  } catch (error) {
    return { statusCode: null, problem: `The receiver could not be reached (${(error as Error).message})` };
  }
}

/**
 * The deliveries: each try POSTs the stored body, signed, and writes its outcome to the delivery
 * log; anything but a 2xx answer is a failed try, retried by the queue with backoff. The event id
 * (also in X-Atrium-Delivery) lets the receiver ignore a delivery it has already processed.
 *
 * One organisation's events go out in order (issue 30): an event waits while an earlier one is
 * neither delivered nor given up, and the end of each wakes the next. A billing system applying
 * them one after the other ends on the latest state; `sequence` in the body says the order.
 */
export function registerSubscriptionWebhookJob(
  worker: JobWorker,
  deps: { db: Db; config: Pick<Config, 'subscriptionWebhook'>; log: FastifyBaseLogger },
): void {
  const finished = async (delivery: WebhookDelivery) => {
    if (await wakeNextDelivery(deps.db, delivery, SUBSCRIPTION_WEBHOOK_JOB)) worker.wake();
  };
  worker.register(
    SUBSCRIPTION_WEBHOOK_JOB,
    async (payload, { job, log }) => {
      const { deliveryId } = payload as { deliveryId: string };
      const delivery = await findDelivery(deps.db, deliveryId);
      // The organisation was deleted since, and its log with it; or it went out already.
      if (!delivery || delivery.status !== 'pending') return;
      const earlier = await firstUnfinishedBefore(deps.db, delivery);
      if (earlier) {
        throw new DeferredJob(`Waits for event ${earlier.sequence} of the organisation`, WAIT_FOR_EARLIER_MS);
      }
      // The secret is read now, not stored: a rotated secret signs the retries.
      const secret = deps.config.subscriptionWebhook?.secret;
      const { statusCode, problem } = secret
        ? await post(delivery, secret)
        : { statusCode: null, problem: 'SUBSCRIPTION_WEBHOOK_SECRET is not set' };
      const lastTry = !secret || job.attempts >= job.max_attempts;
      const status = problem ? (lastTry ? 'failed' : 'pending') : 'delivered';
      await recordTry(deps.db, delivery.id, { attempts: job.attempts, statusCode, problem, status });
      if (status !== 'pending') await finished(delivery);
      if (problem) throw lastTry ? new PermanentJobError(problem) : new Error(problem);
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
