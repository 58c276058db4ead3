import type { Config } from '../../config.ts';
import type { DbOrTrx } from '../../db/database.ts';
import { AppError, conflict } from '../../lib/errors.ts';
import { planCatalogOf, planIncludesApp, type CatalogPlan } from './plan-catalog.ts';
import { queueSubscriptionWebhook } from './subscription-webhook.ts';
import { countUsers, lockSubscriptionRow, type SubscriptionRow } from './subscriptions.repository.ts';
import { startSubscription } from './subscription-start.ts';

type LimitConfig = Pick<Config, 'planCatalog' | 'appCatalog' | 'subscriptionWebhook'>;

/** Where an admin raises a limit; every limit's message ends with it. */
const ON_SUBSCRIPTIONS = 'on the Subscriptions page';

export const subscriptionCancelled = () =>
  new AppError(
    409,
    'subscription_cancelled',
    `Your subscription is cancelled, so nothing can be changed: you can still read and export. Choose a plan ${ON_SUBSCRIPTIONS} to make changes again.`,
  );

/**
 * The organisation's subscription and plan, its row locked until the transaction ends. Every
 * change a limit could refuse calls this first, inside the transaction that makes the change:
 * concurrent ones wait here and then count what the first one added. An organisation without a
 * subscription yet (made before plans existed) gets the default one here.
 */
export async function lockSubscription(
  trx: DbOrTrx,
  config: LimitConfig,
  organizationId: string,
): Promise<{ row: SubscriptionRow; plan: CatalogPlan }> {
  let row = await lockSubscriptionRow(trx, organizationId);
  if (!row) {
    await startSubscription(trx, config, organizationId, null);
    row = (await lockSubscriptionRow(trx, organizationId))!;
  }
  return { row, plan: planCatalogOf(config).planOf(row.plan_key) };
}

/** As lockSubscription, refusing any change while the subscription is cancelled. */
export async function lockForChange(trx: DbOrTrx, config: LimitConfig, organizationId: string) {
  const locked = await lockSubscription(trx, config, organizationId);
  if (locked.row.status === 'cancelled') throw subscriptionCancelled();
  return locked;
}

/**
 * A seat for one more user (added with a password or invited). Call it in the transaction that
 * inserts the user. When that user takes the last seat, the billing system hears of it.
 */
export async function claimSeat(trx: DbOrTrx, config: LimitConfig, organizationId: string): Promise<void> {
  const { row, plan } = await lockForChange(trx, config, organizationId);
  const used = await countUsers(trx, organizationId);
  if (used >= row.seats) {
    const atPlanLimit = plan.seatLimit !== null && row.seats >= plan.seatLimit;
    const raise = atPlanLimit
      ? `The ${plan.title} plan allows at most ${plan.seatLimit} seats: change to a larger plan ${ON_SUBSCRIPTIONS}, or delete a user first.`
      : `Add seats ${ON_SUBSCRIPTIONS}, or delete a user first.`;
    throw conflict(
      `All ${row.seats} seats of your ${plan.title} plan are in use (invited and suspended users hold a seat too). ${raise}`,
      undefined,
      'seat_limit',
    );
  }
  if (used + 1 === row.seats) await tellSeatsExhausted(trx, config, organizationId, row);
}

/**
 * The billing system hears that the last seat is taken: by one user added, or by an import's
 * batch (modules/migration). Call it in the transaction that takes the seat.
 */
export function tellSeatsExhausted(
  trx: DbOrTrx,
  config: LimitConfig,
  organizationId: string,
  row: SubscriptionRow,
): Promise<void> {
  return queueSubscriptionWebhook(trx, config, organizationId, 'subscription.seats_exhausted', {
    plan: row.plan_key,
    seats: row.seats,
    seatsUsed: row.seats,
  });
}

/** Room for one more domain under the plan (the server's own cap is the domains area's). */
export async function assertDomainAllowed(
  trx: DbOrTrx,
  config: LimitConfig,
  organizationId: string,
  domainsNow: number,
): Promise<void> {
  const { plan } = await lockForChange(trx, config, organizationId);
  if (domainsNow >= plan.maxDomains) {
    throw conflict(
      `Your ${plan.title} plan allows ${plural(plan.maxDomains, 'domain')} and your organisation has ${domainsNow}. ` +
        `Change to a plan with more domains ${ON_SUBSCRIPTIONS}, or delete a domain first.`,
      undefined,
      'domain_limit',
    );
  }
}

/** The plan must include the app template being installed. */
export async function assertAppAllowed(
  trx: DbOrTrx,
  config: LimitConfig,
  organizationId: string,
  template: { key: string; title: string },
): Promise<void> {
  const { plan } = await lockForChange(trx, config, organizationId);
  if (!planIncludesApp(plan, template.key)) {
    throw conflict(
      `${template.title} is not included in your ${plan.title} plan. Change to a plan that includes it ${ON_SUBSCRIPTIONS}.`,
      undefined,
      'app_not_in_plan',
    );
  }
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
