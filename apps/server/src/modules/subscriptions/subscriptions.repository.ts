import { sql, type Insertable, type Selectable } from 'kysely';
import type { DbOrTrx } from '../../db/database.ts';
import type { SubscriptionHistoryTable, SubscriptionsTable } from '../../db/subscription-tables.ts';

export type SubscriptionRow = Selectable<SubscriptionsTable>;
export type SubscriptionHistoryRow = Selectable<SubscriptionHistoryTable>;

export interface SubscriptionState {
  plan_key: string;
  seats: number;
  status: SubscriptionRow['status'];
  trial_ends_at: Date | null;
  renews_at: Date | null;
}

/**
 * Writes the organisation's first subscription unless it has one. True when this call wrote it
 * (the caller records it in the history).
 */
export async function insertSubscriptionIfMissing(
  db: DbOrTrx,
  organizationId: string,
  state: SubscriptionState,
): Promise<boolean> {
  const inserted = await db
    .insertInto('subscriptions')
    .values({ organization_id: organizationId, ...state })
    .onConflict((oc) => oc.column('organization_id').doNothing())
    .returning('organization_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findSubscription(
  db: DbOrTrx,
  organizationId: string,
): Promise<SubscriptionRow | undefined> {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
}

/**
 * The subscription, locked until the transaction ends: every change a limit could refuse takes
 * this lock first, so two of them cannot both count the same free seat.
 */
export async function lockSubscriptionRow(
  trx: DbOrTrx,
  organizationId: string,
): Promise<SubscriptionRow | undefined> {
  return trx
    .selectFrom('subscriptions')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .forUpdate()
    .executeTakeFirst();
}

export async function updateSubscription(
  trx: DbOrTrx,
  organizationId: string,
  state: SubscriptionState,
): Promise<SubscriptionRow> {
  return trx
    .updateTable('subscriptions')
    .set({ ...state, updated_at: sql`now()` })
    .where('organization_id', '=', organizationId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertHistory(
  trx: DbOrTrx,
  entry: Omit<Insertable<SubscriptionHistoryTable>, 'id' | 'created_at'>,
): Promise<void> {
  await trx.insertInto('subscription_history').values(entry).execute();
}

export async function listHistory(
  db: DbOrTrx,
  organizationId: string,
  limit: number,
): Promise<SubscriptionHistoryRow[]> {
  return db
    .selectFrom('subscription_history')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export interface Usage {
  /** Every user holds a seat, invited and suspended ones too. */
  users: number;
  domains: number;
  /** Installed apps with the template each came from. */
  apps: Array<{ title: string; templateKey: string }>;
}

/** What the organisation uses of its plan, counted in the caller's transaction. */
export async function usageOf(db: DbOrTrx, organizationId: string): Promise<Usage> {
  const { rows } = await sql<{ users: number; domains: number }>`
    select (select count(*)::int from users where organization_id = ${organizationId}) as users,
           (select count(*)::int from domains where organization_id = ${organizationId}) as domains
  `.execute(db);
  const apps = await db
    .selectFrom('apps')
    .select(['title', 'template_key as templateKey'])
    .where('organization_id', '=', organizationId)
    .orderBy('title')
    .execute();
  return { users: rows[0]!.users, domains: rows[0]!.domains, apps };
}

export async function countUsers(db: DbOrTrx, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function organizationOf(db: DbOrTrx, organizationId: string) {
  return db
    .selectFrom('organizations')
    .select(['id', 'name', 'site_name'])
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
}

export async function organizationBySite(db: DbOrTrx, siteName: string) {
  return db
    .selectFrom('organizations')
    .select(['id', 'name', 'site_name'])
    .where('site_name', '=', siteName)
    .executeTakeFirst();
}
