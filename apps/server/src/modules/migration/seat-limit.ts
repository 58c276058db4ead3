import type { Config } from '../../config.ts';
import type { DbOrTrx } from '../../db/database.ts';
import { planCatalogOf } from '../subscriptions/plan-catalog.ts';
import { lockSubscription, tellSeatsExhausted } from '../subscriptions/subscription-limits.ts';
import { countUsers, findSubscription } from '../subscriptions/subscriptions.repository.ts';
import type { RowPlan } from './user-import.rules.ts';

/**
 * Whether the organisation has a seat for its nth new user of an import (1-based), as a reason a
 * person understands, or null. The dry run and the import both ask this one function per row
 * they would create.
 */
export interface SeatCheck {
  (nthNewUser: number): string | null;
  /** The seats bought, those free now, and the plan's title: for "you need N more seats". */
  readonly seats: number;
  readonly free: number;
  readonly planTitle: string;
}

type SeatConfig = Pick<Config, 'planCatalog' | 'appCatalog' | 'subscriptionWebhook'>;

const overSeats = (seats: number, planTitle: string) =>
  `Over the seat limit: all ${seats} seats of your ${planTitle} plan would be in use. Add seats on the Subscriptions page, or remove this row.`;

/** Seats as they stand now (users already in the organisation hold theirs), for planning rows. */
export async function seatCheckFor(
  db: DbOrTrx,
  config: SeatConfig,
  organizationId: string,
): Promise<SeatCheck> {
  const row = await findSubscription(db, organizationId);
  // An organisation made before plans existed gets the default plan once something locks it.
  const plan = planCatalogOf(config).planOf(row?.plan_key ?? '');
  const seats = row?.seats ?? plan.defaultSeats;
  const used = await countUsers(db, organizationId);
  const check = (nth: number) => (used + nth > seats ? overSeats(seats, plan.title) : null);
  return Object.assign(check, { seats, free: Math.max(0, seats - used), planTitle: plan.title });
}

/**
 * The plans of one batch, fitted to the seats free at the moment it is written: the
 * subscription is locked, as for any user added, so an admin adding people meanwhile cannot
 * make the import overshoot. Creates beyond the free seats become errors.
 */
export async function fitToSeats(
  trx: DbOrTrx,
  config: SeatConfig,
  organizationId: string,
  plans: RowPlan[],
): Promise<RowPlan[]> {
  const { row, plan } = await lockSubscription(trx, config, organizationId);
  let free = row.seats - (await countUsers(trx, organizationId));
  return plans.map((p) => {
    if (p.action !== 'create') return p;
    if (free > 0) {
      free--;
      return p;
    }
    return { row: p.row, action: 'error', message: overSeats(row.seats, plan.title) };
  });
}

/**
 * After a batch is written, in its transaction: when its users took the organisation's last
 * seat, the billing system hears of it, as when one user added takes it (issue 30).
 */
export async function tellIfLastSeatTaken(
  trx: DbOrTrx,
  config: SeatConfig,
  organizationId: string,
  created: number,
): Promise<void> {
  if (created === 0) return;
  const { row } = await lockSubscription(trx, config, organizationId);
  const used = await countUsers(trx, organizationId);
  if (used >= row.seats && used - created < row.seats) {
    await tellSeatsExhausted(trx, config, organizationId, row);
  }
}
