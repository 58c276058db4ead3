import type { Generated } from 'kysely';
import type { Defaulted, NullableTimestamp, Timestamp } from './database.ts';

// Subscriptions (modules/subscriptions): the plan now, its history, the webhook's deliveries.

export type SubscriptionStatus = 'trial' | 'active' | 'past_due' | 'cancelled';

/** One row per organisation: its plan, seats and status now. */
export interface SubscriptionsTable {
  organization_id: string;
  plan_key: string;
  seats: number;
  status: SubscriptionStatus;
  trial_ends_at: NullableTimestamp;
  renews_at: NullableTimestamp;
  /** The number of this organisation's last webhook event (issue 30). */
  webhook_sequence: Defaulted<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Every change of a subscription: who, when, from what to what. */
export interface SubscriptionHistoryTable {
  id: Generated<string>;
  organization_id: string;
  actor_user_id: string | null;
  actor_label: string;
  source: 'console' | 'operator' | 'system';
  from_plan_key: string | null;
  from_seats: number | null;
  from_status: SubscriptionStatus | null;
  plan_key: string;
  seats: number;
  status: SubscriptionStatus;
  created_at: Timestamp;
}

/** The webhook's delivery log: one row per event, updated on each try. */
export interface SubscriptionWebhookDeliveriesTable {
  id: Generated<string>;
  organization_id: string;
  event: string;
  /** 1, 2, 3… per organisation, in the order the events happened; delivered in that order. */
  sequence: number;
  /** The exact body signed and sent, so every try sends the same bytes. */
  body: string;
  url: string;
  status: Defaulted<'pending' | 'delivered' | 'failed'>;
  attempts: Defaulted<number>;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  last_attempt_at: NullableTimestamp;
  delivered_at: NullableTimestamp;
}
