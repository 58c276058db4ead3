import type { Config } from '../../config.ts';
import type { DbOrTrx } from '../../db/database.ts';
import { recordActivity } from '../activity/activity.repository.ts';
import { planCatalogOf, type CatalogPlan } from './plan-catalog.ts';
import { queueSubscriptionWebhook, webhookView } from './subscription-webhook.ts';
import { scheduleTrialEnd } from './trial-end.ts';
import {
  insertHistory,
  insertSubscriptionIfMissing,
  type SubscriptionState,
} from './subscriptions.repository.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A month on from `from` (billing periods are monthly; the billing system may say otherwise). */
export function monthAfter(from: Date): Date {
  const next = new Date(from);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}

/** A new subscription on `plan`: on trial when the plan has one, its default seats. */
export function initialState(plan: CatalogPlan, now = new Date()): SubscriptionState {
  if (plan.trialDays > 0) {
    const trialEnd = new Date(now.getTime() + plan.trialDays * DAY_MS);
    return {
      plan_key: plan.key,
      seats: plan.defaultSeats,
      status: 'trial',
      trial_ends_at: trialEnd,
      renews_at: trialEnd,
    };
  }
  return {
    plan_key: plan.key,
    seats: plan.defaultSeats,
    status: 'active',
    trial_ends_at: null,
    renews_at: monthAfter(now),
  };
}

/**
 * Puts an organisation on the operator's default plan, unless it has a subscription already:
 * with its first history entry, an activity entry and the billing system's `subscription.created`.
 * Call it in the transaction that creates the organisation.
 */
export async function startSubscription(
  trx: DbOrTrx,
  config: Pick<Config, 'planCatalog' | 'appCatalog' | 'subscriptionWebhook'>,
  organizationId: string,
  actor: { userId: string; label: string } | null,
): Promise<void> {
  const catalog = planCatalogOf(config);
  const state = initialState(catalog.defaultPlan);
  if (!(await insertSubscriptionIfMissing(trx, organizationId, state))) return;
  await insertHistory(trx, {
    organization_id: organizationId,
    actor_user_id: actor?.userId ?? null,
    actor_label: actor?.label ?? 'System',
    source: 'system',
    from_plan_key: null,
    from_seats: null,
    from_status: null,
    plan_key: state.plan_key,
    seats: state.seats,
    status: state.status,
  });
  await recordActivity(trx, {
    organizationId,
    actor: null,
    action: 'subscription.started',
    target: { type: 'subscription', id: organizationId, label: catalog.defaultPlan.title },
    details: { plan: state.plan_key, seats: state.seats, status: state.status },
  });
  if (state.trial_ends_at) await scheduleTrialEnd(trx, organizationId, state.trial_ends_at);
  await queueSubscriptionWebhook(trx, config, organizationId, 'subscription.created', {
    subscription: webhookView(state),
  });
}
